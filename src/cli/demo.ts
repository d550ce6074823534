import { sampleTimeEntry } from '../demo/examples.ts';
import { DEMO_LOGINS, seedDemoLogins } from '../demo/logins.ts';
import { seedDemo } from '../demo/seed.ts';
import { provisionWorkspace } from '../domain/workspace/provision.ts';
import { createApiKey } from '../workspaces/keys.ts';
import { parse } from './args.ts';
import { openWorkspace, scopeOf, type Command } from './context.ts';
import { ensureNotServing, serve } from './serve.ts';

/**
 * `hourbook demo`: its own module, so `serve` never loads the demo's seed data and logins (a
 * twentieth of the server's start-up).
 */

const DEMO = 'demo';

/** Creates (or reuses) the demo workspace, seeds it, prints the app's address and logins, a key and curl lines, then serves. */
export const demo: Command = async (argv, services, io) => {
  parse(argv, {});
  // A second demo beside a running one would add a key and then fail to listen: refuse first.
  await ensureNotServing(services);
  const now = services.clock();
  let handle = services.registry.get(DEMO);
  if (!handle) {
    provisionWorkspace(
      services.registry,
      { subdomain: DEMO, name: 'Demo Agency', timeZone: 'Europe/Berlin', owner: { email: 'owner@demo.localhost', firstName: 'Olivia', lastName: 'Owner' } },
      now,
    );
    handle = openWorkspace(services, DEMO);
  }
  seedDemo(scopeOf(services, handle));
  await seedDemoLogins(scopeOf(services, handle));
  const key = createApiKey(handle.db, { label: 'demo', now });
  const { port, baseDomain } = services.config;
  const headers = `-H 'Host: ${DEMO}.${baseDomain}' -H 'X-Api-Key: ${key.apiKey}'`;
  const entry = sampleTimeEntry(handle, now.toISOString().slice(0, 10));
  const width = Math.max(...DEMO_LOGINS.map((l) => l.who.length));
  io.out(`demo workspace ready: ${DEMO}.${baseDomain}
web app: http://${DEMO}.${baseDomain}:${port}/
${DEMO_LOGINS.map((l) => `  ${`${l.who}:`.padEnd(width + 1)}  ${l.email}  password: ${l.password}`).join('\n')}
api key: ${key.apiKey}
try:
  curl ${headers} -H 'Accept: application/json' http://localhost:${port}/api/external/v2/team-members
${
  entry
    ? `  curl ${headers} -H 'Content-Type: application/json' -d '${JSON.stringify(entry)}' http://localhost:${port}/api/external/v2/time-entries
`
    : ''
}  open http://localhost:${port}/docs for the API reference
`);
  await serve([], services, io);
};
