import { connect } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { makeClient, makeRecipient } from './helpers/factories.ts';
import { send } from './helpers/http.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env.close());

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Sends bytes exactly as given over a raw socket and reads the whole answer (the server closes it). */
function raw(request: string | Buffer): Promise<RawAnswer> {
  const { port } = new URL(env.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    // The request is written whole but the socket is not half-closed: the server ends it after answering.
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, headers: head, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

const get = (path: string, host = env.alpha.host, extra = '') =>
  raw(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nX-Api-Key: ${env.alpha.key}\r\nAccept: application/json\r\nConnection: close\r\n${extra}\r\n`);

/** The envelope's code, from a body that is chunked or not. */
const envelopeCode = (answer: RawAnswer): string => {
  const json = /\{.*\}/s.exec(answer.body)?.[0];
  expect(json, `an envelope in ${JSON.stringify(answer.body)}`).toBeDefined();
  const parsed = JSON.parse(json!) as { error?: unknown; code?: unknown };
  expect(typeof parsed.error).toBe('string');
  return String(parsed.code);
};

describe('hostile input at the edge', () => {
  const badEscapes = ['%ZZ', '%', '%u0000', '%c0%ae', '%ED%A0%80'];

  it.each(badEscapes)('a malformed percent-escape in an API path (%s) is 400 invalid_path in the envelope, with or without a key or workspace', async (escape) => {
    for (const host of [env.alpha.host, 'nowhere.localhost', 'evil.example']) {
      const res = await get(`/api/external/v1/clients/${escape}`, host);
      expect(res.status, host).toBe(400);
      expect(envelopeCode(res)).toBe('invalid_path');
    }
  });

  it('that 400 is in the API document for every operation, reads included (the answer is checked against it)', async () => {
    for (const [method, path] of [
      ['GET', '/api/external/v1/clients/%ZZ'],
      ['POST', '/api/external/v1/clients/%ZZ/invoices'],
      ['DELETE', '/api/external/v1/clients/%ZZ/recipients/x'],
    ] as const) {
      const res = await send(env.url, method, path, { host: env.alpha.host, key: env.alpha.key, headers: { accept: 'application/json' } });
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('invalid_path');
    }
  });

  it('a body sent with GET or DELETE is not read: neither refused (400, 413, 415) nor taken into the input', async () => {
    const client = makeClient(env.alpha.handle.db, { name: 'Body Ignored' });
    const recipient = makeRecipient(env.alpha.handle.db, client.id);
    const opts = { host: env.alpha.host, key: env.alpha.key };
    expect((await send(env.url, 'GET', `/api/external/v1/clients/${client.id}`, { ...opts, body: '{', headers: { 'content-type': 'application/json', accept: 'application/json' } })).status).toBe(200);
    expect((await send(env.url, 'GET', `/api/external/v1/clients/${client.id}`, { ...opts, body: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'text/plain', accept: 'application/json' } })).status).toBe(200);
    const page = await send(env.url, 'GET', '/api/external/v2/team-members', { ...opts, body: JSON.stringify({ page_number: 99 }), headers: { 'content-type': 'application/json', accept: 'application/json' } });
    expect(page.status).toBe(200);
    expect(page.body.team_members.length).toBeGreaterThan(0);
    expect((await send(env.url, 'DELETE', `/api/external/v1/clients/${client.id}/recipients/${recipient.id}`, { ...opts, body: '{', headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });

  it('tRPC input that does not parse, or a malformed path, is refused as the request\'s fault, never a 500', async () => {
    const opts = { host: env.alpha.host, key: env.alpha.key };
    for (const path of ['/trpc/clients.list?input=%7Bnot-json', '/trpc/clients.list?batch=1&input=%5B1%5D', '/trpc/clients%ZZlist']) {
      const res = await send(env.url, 'GET', path, opts);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
  });

  it.each(badEscapes)('the public invoice page answers its HTML 404 for %s', async (escape) => {
    const res = await get(`/invoices/${escape}`);
    expect(res.status).toBe(404);
    expect(res.headers).toMatch(/content-type: text\/html/i);
    expect(res.body).toContain('Invoice not found');
  });

  it.each(['gzip', 'deflate', 'br'])('Content-Encoding: %s on a body that is not compressed is 400 invalid_json', async (encoding) => {
    const body = JSON.stringify({ client_ids: [], status: 'archived' });
    const res = await raw(
      `POST /api/external/v1/clients/update_status HTTP/1.1\r\nHost: ${env.alpha.host}\r\nX-Api-Key: ${env.alpha.key}\r\nContent-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.status).toBe(400);
    expect(envelopeCode(res)).toBe('invalid_json');
  });

  it('a body that really is compressed as it says is read', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(JSON.stringify({ client_ids: [], status: 'bogus' }))],
      ['br', brotliCompressSync(JSON.stringify({ client_ids: [], status: 'bogus' }))],
    ] as const) {
      const head = `POST /api/external/v1/clients/update_status HTTP/1.1\r\nHost: ${env.alpha.host}\r\nX-Api-Key: ${env.alpha.key}\r\nContent-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
      const res = await raw(Buffer.concat([Buffer.from(head), bytes]));
      // The body was understood: the answer is about the status, not about the encoding.
      expect(res.status, encoding).toBe(422);
      expect(envelopeCode(res)).toBe('validation_failed');
    }
  });

  it.each([
    ['a bad Content-Length', 'POST /api/external/v1/projects HTTP/1.1\r\nHost: alpha.localhost\r\nContent-Length: abc\r\n\r\n', 400, 'bad_request'],
    ['conflicting Content-Lengths', 'POST /api/external/v1/projects HTTP/1.1\r\nHost: alpha.localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', 400, 'bad_request'],
    ['Content-Length with Transfer-Encoding', 'POST /api/external/v1/projects HTTP/1.1\r\nHost: alpha.localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'bad_request'],
    ['a 20 KB header', `GET /healthz HTTP/1.1\r\nHost: alpha.localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ['a control byte in a header', 'GET /healthz HTTP/1.1\r\nHost: alpha.localhost\r\nX-Bad: a\u0001b\r\n\r\n', 400, 'bad_request'],
    ['an unknown Expect', 'POST /api/external/v1/projects HTTP/1.1\r\nHost: alpha.localhost\r\nExpect: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}', 417, 'expectation_failed'],
  ])('%s is answered with the envelope, not a bare status', async (_what, request, status, code) => {
    const res = await raw(request);
    expect(res.status).toBe(status);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(envelopeCode(res)).toBe(code);
  });

  it('the REST door answers like the router it replaced: OPTIONS 405 with Allow, an absolute-form target, the prefix in any case, the document read-only', async () => {
    const options = await raw(`OPTIONS /api/external/v2/time-entries HTTP/1.1\r\nHost: ${env.alpha.host}\r\nConnection: close\r\n\r\n`);
    expect(options.status).toBe(405);
    expect(options.headers).toMatch(/\r\nallow: POST\r\n/i);
    expect(envelopeCode(options)).toBe('method_not_allowed');
    const absolute = await raw(`GET http://${env.alpha.host}/api/external/v2/team-members HTTP/1.1\r\nHost: ${env.alpha.host}\r\nX-Api-Key: ${env.alpha.key}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`);
    expect(absolute.status).toBe(200);
    expect(absolute.body).toContain(env.alpha.ownerEmail);
    expect((await get('/API/External/v2/team-members')).status).toBe(200);
    const postDocument = await raw(`POST /api/external/openapi.json HTTP/1.1\r\nHost: ${env.alpha.host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    expect(postDocument.status).toBe(404);
    expect(envelopeCode(postDocument)).toBe('route_not_found');
    expect((await get('/api/external/openapi.json')).status).toBe(200);
  });

  it('the server still answers normally afterwards', async () => {
    const res = await get('/healthz');
    expect(res.status).toBe(200);
  });
});
