import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceIdentity } from '../src/db/schema/index.ts';
import { startTestEnv, testClock, type TestEnv, type TestWorkspace } from './helpers/env.ts';
import { send } from './helpers/http.ts';
import { makeMember } from './helpers/factories.ts';

let env: TestEnv;
let ws: TestWorkspace;

beforeAll(async () => {
  env = await startTestEnv({ clock: testClock() });
  ws = env.alpha;
});
afterAll(() => env.close());

const update = (input: Record<string, unknown>) => ws.caller.workspace.updateIdentity({ email: ws.ownerEmail, ...input });
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
const storedLogo = () => ws.handle.db.select().from(workspaceIdentity).where(eq(workspaceIdentity.id, 1)).get();

/** The 422 of a refused update: the field it names. */
async function refused(input: Record<string, unknown>) {
  const err = await update(input).then(
    () => null,
    (e: { cause?: { code?: string; details?: { path: string; message: string }[] } }) => e.cause,
  );
  expect(err?.code).toBe('validation_failed');
  return err!.details![0]!;
}

describe('workspace identity', () => {
  it('defaults to the workspace name and en-US; fields given change, others stay; null or "" clears', async () => {
    expect((await ws.caller.workspace.identity()).identity).toMatchObject({ display_name: 'alpha', legal_name: '', locale: 'en-US', logo: null, updated_at: null });
    await update({ legal_name: 'Alpha Agency LLC', address: '500 Main Street, Suite 12\r\nSpringfield, IL 62701\r\nUSA', tax_id: 'US-12-3456789', reply_to: ' Billing@Alpha.TEST ', sender_name: 'Alpha Billing' });
    const { identity } = await update({ locale: 'fr-fr' });
    expect(identity).toMatchObject({
      display_name: 'Alpha Agency LLC',
      legal_name: 'Alpha Agency LLC',
      address: '500 Main Street, Suite 12\nSpringfield, IL 62701\nUSA',
      tax_id: 'US-12-3456789',
      reply_to: 'Billing@alpha.test',
      sender_name: 'Alpha Billing',
      locale: 'fr-FR',
    });
    expect((await update({ sender_name: null, tax_id: '' })).identity).toMatchObject({ sender_name: '', tax_id: '', legal_name: 'Alpha Agency LLC' });
    // Another workspace is untouched.
    expect((await env.beta.caller.workspace.identity()).identity.legal_name).toBe('');
  });

  it('only an Owner or Admin may change it', async () => {
    const member = makeMember(ws.handle.db);
    await expect(ws.caller.workspace.updateIdentity({ email: member.email, legal_name: 'Hijack' })).rejects.toMatchObject({ cause: { code: 'forbidden' } });
    const admin = makeMember(ws.handle.db, { organizationRole: 'Admin' });
    await expect(ws.caller.workspace.updateIdentity({ email: admin.email, tax_id: 'X1' })).resolves.toBeDefined();
  });

  it('422 naming the field: unknown locale, bad reply-to, a line break in one-line fields', async () => {
    expect((await refused({ locale: 'xx-NOPE' })).path).toBe('locale');
    expect((await refused({ locale: 'en_US' })).path).toBe('locale');
    expect((await refused({ reply_to: 'not-mail' })).path).toBe('reply_to');
    expect((await refused({ legal_name: 'Two\nLines' })).path).toBe('legal_name');
    expect((await refused({ sender_name: 'Evil\r\nBcc: x@y.z' })).path).toBe('sender_name');
  });

  it('PNG and JPEG are decoded and re-encoded (metadata gone, scaled to 1000 px); a fake or broken image is refused', async () => {
    const png = await sharp({ create: { width: 2400, height: 800, channels: 4, background: '#ff8800' } })
      .png()
      .withMetadata({ exif: { IFD0: { Copyright: 'secret-exif-text' } } })
      .toBuffer();
    const { identity } = await update({ logo_base64: `data:image/png;base64,${b64(png)}` });
    expect(identity.logo?.content_type).toBe('image/png');
    const stored = Buffer.from(identity.logo!.base64, 'base64');
    expect(await sharp(stored).metadata()).toMatchObject({ format: 'png', width: 1000, height: 333 });
    expect(stored.includes(Buffer.from('secret-exif-text'))).toBe(false);
    const jpeg = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#00ff00' } }).jpeg().toBuffer();
    expect((await update({ logo_base64: b64(jpeg) })).identity.logo).toMatchObject({ content_type: 'image/jpeg' });
    // Only the first bytes of a PNG: the signature says PNG, decoding says otherwise.
    expect(await refused({ logo_base64: b64(png.subarray(0, 200)) })).toMatchObject({ path: 'logo_base64', message: 'could not be read as a PNG image' });
    expect(await refused({ logo_base64: b64('GIF89a not supported') })).toMatchObject({ path: 'logo_base64', message: 'is not a PNG, JPEG or SVG image' });
    expect(await refused({ logo_base64: 'not base64!' })).toMatchObject({ path: 'logo_base64' });
    expect(storedLogo()?.logoMime).toBe('image/jpeg');
  });

  it('a logo over 1 MB is refused with 422 (the tRPC body takes it), nothing else of the request is written', async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 0x41);
    const before = (await ws.caller.workspace.identity()).identity;
    expect(await refused({ logo_base64: b64(big), legal_name: 'Should Not Stick' })).toMatchObject({ path: 'logo_base64', message: expect.stringMatching(/at most 1 MB/) });
    expect((await ws.caller.workspace.identity()).identity).toEqual(before);
    // Over HTTP: a body with a 1 MB logo is accepted by /trpc (not 413) and refused by the rule.
    const res = await send(env.url, 'POST', '/trpc/workspace.updateIdentity', { host: ws.host, key: ws.key, body: { email: ws.ownerEmail, logo_base64: b64(big) } });
    expect(res.status).toBe(422);
    expect(res.body.error.data.code).toBe('validation_failed');
  });

  it('SVG is sanitised: no script, event handler, foreign object or outside reference survives', async () => {
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="40" onload="alert(1)">
<script>alert(2)</script><style>@import url(https://evil.test/x.css); rect{fill:red}</style>
<rect width="120" height="40" fill="#1a4fa3" onclick="steal()"/><image href="https://evil.test/track.png" width="1" height="1"/>
<use xlink:href="https://evil.test/sprite.svg#a"/><a href="javascript:alert(3)"><text x="4" y="24" style="fill:url(https://evil.test/f)">Logo</text></a>
<foreignObject><iframe src="https://evil.test"></iframe></foreignObject></svg>`;
    const { identity } = await update({ logo_base64: b64(svg) });
    expect(identity.logo?.content_type).toBe('image/svg+xml');
    const clean = Buffer.from(identity.logo!.base64, 'base64').toString('utf8');
    for (const bad of ['<script', 'onload', 'onclick', 'evil.test', 'javascript:', 'foreignObject', 'iframe', '@import']) expect(clean).not.toContain(bad);
    expect(clean).toContain('<rect');
    expect(clean).toContain('Logo');
    // The PDF draws a PNG rendering of the sanitised SVG.
    expect((await sharp(storedLogo()!.logoRaster!).metadata()).format).toBe('png');
  });

  it('SVG: outside references spelled with CSS escapes or image-set are removed too', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><style>@\\69mport "http://evil.test/import"; rect{fill:u\\72l(http://evil.test/style#p)}</style>
<style>@font-face{font-family:x;src:u\\000072 l(http://evil.test/font)} .keep{fill:#123456}</style><style>rect{background:image-set("http://evil.test/set.png" 1x)}</style>
<rect width="10" height="10" style="filter:u\\72l(http://evil.test/attr#f)"/><rect class="keep" width="5" height="5" style="fill:url(#local)"/><text x="1" y="20">hi</text></svg>`;
    const { identity } = await update({ logo_base64: b64(svg) });
    const clean = Buffer.from(identity.logo!.base64, 'base64').toString('utf8');
    expect(clean).not.toContain('evil.test');
    // references inside the document stay
    expect(clean).toContain('url(#local)');
    expect(clean).toContain('hi');
  });
});
