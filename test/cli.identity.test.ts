import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-cli-identity-'));
const BIN = fileURLToPath(new URL('../bin/hourbook.js', import.meta.url));

async function hourbook(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  expect((await hourbook(['workspace', 'create', 'studio', '--owner-email', 'owner@studio.test'])).code).toBe(0);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('hourbook workspace identity', () => {
  it('sets the identity with the same checks as tRPC and prints it; a logo file is re-encoded', async () => {
    const logo = join(dataDir, 'logo.png');
    writeFileSync(logo, await sharp({ create: { width: 300, height: 100, channels: 3, background: '#123456' } }).png().toBuffer());
    const res = await hourbook([
      'workspace', 'identity', 'studio',
      '--legal-name', 'Studio Nord GmbH',
      '--address', 'Hafenstraße 1\\n20457 Hamburg',
      '--tax-id', 'DE111222333',
      '--locale', 'de-de',
      '--reply-to', 'billing@studio.test',
      '--logo', logo,
      '--json',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const { identity } = JSON.parse(res.stdout);
    expect(identity).toMatchObject({ legal_name: 'Studio Nord GmbH', address: 'Hafenstraße 1\n20457 Hamburg', tax_id: 'DE111222333', locale: 'de-DE', reply_to: 'billing@studio.test' });
    expect(identity.logo).toMatchObject({ content_type: 'image/png' });
    const shown = await hourbook(['workspace', 'identity', 'studio']);
    expect(shown.stdout).toContain('Studio Nord GmbH (VAT ID DE111222333)');
    expect(shown.stdout).toContain('Hafenstraße 1\n20457 Hamburg');
    expect(shown.stdout).toMatch(/logo: image\/png, \d+ bytes/);
  });

  it.each([
    [['--locale', 'xx-NOPE'], /--locale: "xx-NOPE" is not a locale/],
    [['--reply-to', 'nobody'], /--reply-to/],
    [['--logo', '/no/such/file.png'], /--logo: cannot read/],
    [['--logo', fileURLToPath(import.meta.url)], /--logo: is not a PNG, JPEG or SVG image/],
    [['--logo', 'x', '--no-logo'], /either --logo FILE or --no-logo/],
  ])('refuses %j with exit 1 and a message naming the flag', async (flags, message) => {
    const res = await hourbook(['workspace', 'identity', 'studio', ...flags]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
  });
});

describe('hourbook workspace payments', () => {
  it('sets the processor from flags; shows only the last 4 characters', async () => {
    const set = await hourbook(['workspace', 'payments', 'studio', '--stripe-secret-key', 'sk_test_abcdefgh1234', '--stripe-webhook-secret', 'whsec_abcdefgh5678', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).payment_processor).toMatchObject({ configured: true, mode: 'test', secret_key_last4: '1234', webhook_secret_last4: '5678' });
    expect(set.stdout).not.toContain('sk_test_abcdefgh1234');
  });

  it('reads the secrets from the environment with --from-env', async () => {
    const fromEnv = await hourbook(['workspace', 'payments', 'studio', '--from-env'], { STRIPE_SECRET_KEY: 'sk_live_zyxwvuts9999', STRIPE_WEBHOOK_SECRET: 'whsec_zyxwvuts0000' });
    expect(fromEnv.stdout).toContain('live mode');
    expect(fromEnv.stdout).toContain('…9999');
    expect(fromEnv.stdout).toContain('http://studio.localhost:3000/webhooks/stripe');
  });

  it('refuses a wrong key naming the flag; --remove turns card payment off', async () => {
    const bad = await hourbook(['workspace', 'payments', 'studio', '--stripe-secret-key', 'pk_test_x', '--stripe-webhook-secret', 'whsec_abcdefgh5678']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--stripe-secret-key/);
    const removed = await hourbook(['workspace', 'payments', 'studio', '--remove']);
    expect(removed.stdout).toContain('card payment is not set up');
  });
});
