import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_PREFIX } from '../src/rest/adapter.ts';
import { restRoutes } from '../src/rest/routes/index.ts';
import type { RestRoute } from '../src/rest/types.ts';
import { runCommonRouteTests, type CommonRouteCase } from './helpers/common-route-tests.ts';
import { startTestEnv, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { makeMember, makeProjectSetup, makeRecipient } from './helpers/factories.ts';
import { send } from './helpers/http.ts';

/**
 * The shared cases (no key, another workspace's key, unknown workspace, ids of another workspace,
 * malformed bodies, wrong types) for EVERY row of the REST route table. Path parameters are filled
 * from each workspace's seed by name; a row whose operation has no valid body below, or whose path
 * names a parameter with no seed, fails here, so a new row cannot go untested.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
  seeds = { alpha: seed(env.alpha), beta: seed(env.beta) };
});
afterAll(() => env.close());

function seed(w: TestWorkspace) {
  const setup = makeProjectSetup(w.handle.db);
  const recipient = makeRecipient(w.handle.db, setup.client.id);
  const other = makeMember(w.handle.db);
  return { ...setup, recipient, other, ownerEmail: w.ownerEmail };
}
type Seed = ReturnType<typeof seed>;
let seeds: { alpha: Seed; beta: Seed };

/** Every path parameter of the table, resolved in one workspace's seed. */
const PARAMS: Record<string, (s: Seed) => string> = {
  client_id: (s) => s.client.id,
  project_id: (s) => s.project.id,
  project_user_id: (s) => s.projectUser.id,
  recipient_id: (s) => s.recipient.id,
  team_member_id: (s) => s.member.id,
};

/** A body the operation accepts for alpha's seed (the shared cases only send it in failing requests). */
const BODIES: Record<string, (s: Seed) => Record<string, unknown>> = {
  createInvoiceV2: (s) => ({ email: s.ownerEmail, number: 'RT-1', total: 10, invoice_services: [{ quantity: 1, unit_amount: 10 }] }),
  createTimeEntryV2: (s) => ({ client_id: s.client.id, project_id: s.project.id, task_id: s.task.id, email: s.member.email, recorded_on: '2026-11-18', hours: '1.5' }),
  createTimeEntryV1: (s) => BODIES.createTimeEntryV2!(s),
  addProjectUserV2: (s) => ({ project_user: { user_id: s.other.id, role: 'regular_user', hourly_rate: 10 }, email: s.ownerEmail }),
  addProjectUserV1: (s) => BODIES.addProjectUserV2!(s),
  updateProjectV1: (s) => ({ project: { internal_notes: 'route table' }, email: s.ownerEmail }),
  createProjectV1: (s) => ({ project: { name: 'Route table', client_id: s.client.id, billing_method: 'hourly_project_rate', hourly_rate: 100 }, email: s.ownerEmail }),
  updateProjectStatusV1: (s) => ({ project_ids: [s.project.id], status: 'archived', email: s.ownerEmail }),
  createRecipientV2: (s) => ({ recipient: { name: 'Route Table', email: 'route.table@example.test' }, email: s.ownerEmail }),
  updateRecipientV1: () => ({ recipient: { name: 'Route Table' } }),
  updateClientV1: () => ({ client: { name: 'Route Table' } }),
  updateClientStatusV1: (s) => ({ client_ids: [s.client.id], status: 'archived' }),
  updateTeamMemberV1: () => ({ first_name: 'Route' }),
  createClientV1: () => ({ client: { name: 'Route Table Co' } }),
  updateClientV2: () => BODIES.updateClientV1!({} as Seed),
  updateProjectUserV2: (s) => ({ project_user: { role: 'project_manager' }, email: s.ownerEmail }),
  updateProjectUserV1: (s) => BODIES.updateProjectUserV2!(s),
  createInvoiceV1: (s) => BODIES.createInvoiceV2!(s),
};

const paramsOf = (route: RestRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const hasBody = (route: RestRoute) => route.method !== 'GET' && route.method !== 'DELETE';

function pathIn(route: RestRoute, s: Seed): string {
  return `${REST_PREFIX}/${route.version}${route.path.replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name]!(s))}`;
}

function caseFor(route: RestRoute): CommonRouteCase {
  const params = paramsOf(route);
  const first = params[0];
  return {
    method: route.method,
    path: () => pathIn(route, seeds.alpha),
    ...(first ? { otherWorkspacePath: () => pathIn(route, seeds.beta), notFoundCode: `${first.replace(/_id$/, '')}_not_found` } : {}),
    ...(hasBody(route) ? { body: () => BODIES[route.operationId]!(seeds.alpha) } : {}),
    ...(route.requireJsonAccept ? { accept: 'application/json' } : {}),
  };
}

/** A value of another JSON type than `value`: scalars become objects, objects and arrays numbers. */
const wrongTypeFor = (value: unknown): unknown => (typeof value === 'object' && value !== null ? 42 : { not: 'this' });

/** Each field of a body, and each field one level inside its objects (`project.name`), as a path. */
function fieldPaths(body: Record<string, unknown>): string[][] {
  return Object.entries(body).flatMap(([key, value]) =>
    value && typeof value === 'object' && !Array.isArray(value) ? [[key], ...Object.keys(value).map((inner) => [key, inner])] : [[key]],
  );
}

function withValueAt(body: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const copy = structuredClone(body);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path[path.length - 1]!;
  node[last] = wrongTypeFor(node[last]);
  return copy;
}

describe('the route table', () => {
  it.each(restRoutes.map((r) => [r.operationId, r] as const))('%s has what the shared cases need', (_id, route) => {
    for (const name of paramsOf(route)) expect(PARAMS[name], `a seed for {${name}}`).toBeDefined();
    if (hasBody(route)) expect(BODIES[route.operationId], 'a valid body').toBeDefined();
  });
});

for (const route of restRoutes) {
  describe(`${route.method} ${route.version}${route.path} (${route.operationId})`, () => {
    runCommonRouteTests(() => env, caseFor(route));

    if (hasBody(route) && BODIES[route.operationId]) {
      it('422 validation_failed naming the field for each field sent with a wrong JSON type', async () => {
        const valid = BODIES[route.operationId]!(seeds.alpha);
        for (const path of fieldPaths(valid)) {
          const res = await send(env.url, route.method, pathIn(route, seeds.alpha), {
            host: env.alpha.host,
            key: env.alpha.key,
            body: withValueAt(valid, path),
            headers: route.requireJsonAccept ? { accept: 'application/json' } : {},
          });
          const field = path.join('.');
          expect(res.status, field).toBe(422);
          expect(res.body.code, field).toBe('validation_failed');
          expect(
            (res.body.details as { path: string }[]).some((d) => d.path === field || d.path.startsWith(`${field}.`)),
            `${field} in ${JSON.stringify(res.body.details)}`,
          ).toBe(true);
        }
      });
    }
  });
}
