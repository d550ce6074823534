import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/cli/args.ts';
import { run } from '../src/cli/index.ts';
import { cliOver, type CliResult } from './helpers/cli.ts';
import { provisionWorkspace } from '../src/domain/workspace/provision.ts';
import { recordEvent } from '../src/domain/events.ts';
import { loadConfig } from '../src/config.ts';
import { createServices, openWorkspaceScope } from '../src/services.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-webhook-cli-'));
/** The real command, in a process of its own (slow: used once, to prove the wiring). */
const spawned = cliOver(dataDir);

/**
 * The same command line run in this process (`run` is what bin/hourbook.js calls), with the exit
 * status and stderr main.ts would give: fast enough to run every command.
 */
async function hourbook(...args: string[]): Promise<CliResult> {
  const out: string[] = [];
  process.env.DATA_DIR = dataDir;
  process.env.LOG_LEVEL = 'silent';
  try {
    const code = await run(args, { out: (line) => out.push(line) });
    return { code, stdout: out.map((l) => `${l}\n`).join(''), stderr: '' };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { code: 1, stdout: out.join('\n'), stderr: `hourbook: ${err.message}\n` };
  }
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('hourbook webhook', () => {
  let endpointId = '';
  let eventId = '';

  it('add prints the endpoint and its secret once; list never shows the secret', async () => {
    const services = createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    provisionWorkspace(services.registry, { subdomain: 'hooks', timeZone: 'UTC', owner: { email: 'o@hooks.test', firstName: 'O', lastName: 'H' } }, new Date());
    const open = openWorkspaceScope(services, services.registry.get('hooks')!);
    eventId = open.scope.write(() => recordEvent(open.scope, 'client.created', { client: { id: 'c1' } }));
    services.registry.closeAll();

    const added = await hourbook('webhook', 'add', 'hooks', '--url', 'https://erp.example.com/hooks', '--events', 'invoice.paid, client.created', '--description', 'ERP', '--json');
    expect(added.code, added.stderr).toBe(0);
    const out = JSON.parse(added.stdout);
    expect(out.secret).toMatch(/^whsec_/);
    expect(out.endpoint).toMatchObject({ url: 'https://erp.example.com/hooks', events: ['client.created', 'invoice.paid'], enabled: true, description: 'ERP' });
    endpointId = out.endpoint.id;
    const listed = await hourbook('webhook', 'list', 'hooks');
    expect(listed.stdout).toContain(endpointId);
    expect(listed.stdout).toContain('https://erp.example.com/hooks');
    expect(listed.stdout).not.toContain(out.secret);
  });

  it('disable, enable, rotate-secret, events, redeliver, deliveries, remove', async () => {
    expect((await hourbook('webhook', 'disable', 'hooks', endpointId)).stdout).toContain('off');
    const refused = await hourbook('webhook', 'redeliver', 'hooks', endpointId, eventId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/turned off/);
    expect((await hourbook('webhook', 'enable', 'hooks', endpointId)).stdout).toContain('on ');
    const rotated = JSON.parse((await hourbook('webhook', 'rotate-secret', 'hooks', endpointId, '--json')).stdout);
    expect(rotated.secret).toMatch(/^whsec_/);
    const events = JSON.parse((await hourbook('webhook', 'events', 'hooks', '--json')).stdout);
    expect(events.events.map((e: { id: string }) => e.id)).toEqual([eventId]);
    const queued = await hourbook('webhook', 'redeliver', 'hooks', endpointId, eventId);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toContain('client.created');
    const deliveries = JSON.parse((await hourbook('webhook', 'deliveries', 'hooks', endpointId, '--json')).stdout);
    expect(deliveries.deliveries).toEqual([expect.objectContaining({ event_id: eventId, status: 'pending', manual: true })]);
    expect((await hourbook('webhook', 'remove', 'hooks', endpointId)).code).toBe(0);
    expect((await hourbook('webhook', 'list', 'hooks')).stdout).toContain('no webhook endpoints');
  });

  it.each([
    [['webhook', 'add', 'hooks'], /--url is required/],
    [['webhook', 'add', 'hooks', '--url', 'ftp://x'], /--url: must be an http or https URL/],
    [['webhook', 'add', 'hooks', '--url', 'https://x.example', '--events', 'nope'], /--events/],
    [['webhook', 'remove', 'hooks', 'missing'], /No webhook endpoint/],
    [['webhook', 'deliveries', 'hooks', 'missing', '--status', 'lost'], /--status/],
  ])('usage errors: %j', async (args, message) => {
    const res = await hourbook(...args);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
  });

  it('is listed in the usage of the real command', async () => {
    const res = await spawned('webhook');
    expect(res.stdout).toContain('hourbook webhook add <subdomain> --url U');
    expect(res.stdout).toContain('hourbook webhook redeliver <subdomain> <endpoint-id> <event-id>');
  });
});
