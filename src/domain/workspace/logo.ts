import { invalidField } from '../../errors.ts';

/** A logo file may be at most 1 MB (decoded). */
export const LOGO_MAX_BYTES = 1024 * 1024;
/** A JSON body carrying such a logo as base64 (4/3 of it) with room for the other fields. */
export const LOGO_BODY_BYTES = Math.ceil(LOGO_MAX_BYTES / 3) * 4 + 64 * 1024;
/** Raster logos are scaled down to fit this box (never up): plenty for print, small PDFs. */
const MAX_EDGE = 1000;
/** Refuse images whose pixels would not fit sensibly in memory (a small file can decode huge). */
const MAX_INPUT_PIXELS = 40_000_000;

export type LogoMime = 'image/png' | 'image/jpeg' | 'image/svg+xml';

export interface StoredLogo {
  bytes: Buffer;
  mime: LogoMime;
  /** What the PDF draws: the logo itself for PNG and JPEG, a PNG rendering for SVG. */
  raster: Buffer | null;
}

const bad = (message: string) => invalidField('logo_base64', message);

/** sharp (native libvips) is loaded when a logo is uploaded, not by every process that imports this module. */
const loadSharp = async () => (await import('sharp')).default;

/** Base64 (optionally a `data:image/...;base64,` URL) to bytes; anything else is refused. */
function decodeBase64(text: string): Buffer {
  const body = text.replace(/^data:[\w/+.-]+;base64,/, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 === 1) throw bad('must be base64-encoded image bytes');
  return Buffer.from(body, 'base64');
}

const isPng = (b: Buffer) => b.length > 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const isJpeg = (b: Buffer) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

/** An SVG document: after a BOM, an XML declaration, comments and a doctype, the root is `<svg`. */
function isSvg(b: Buffer): boolean {
  const head = b.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  const rest = head.replace(/^\s*(<\?xml[^>]*\?>\s*)?((<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*)*/i, '');
  return /^<svg[\s>]/i.test(rest);
}

/**
 * Decodes and re-encodes a PNG or JPEG: a file that is not really such an image fails here, and
 * what is stored is a fresh file without metadata (EXIF, text chunks), turned upright and scaled
 * to fit 1000 × 1000 pixels.
 */
async function reencode(bytes: Buffer, format: 'png' | 'jpeg'): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: MAX_EDGE, height: MAX_EDGE, fit: 'inside', withoutEnlargement: true });
    return await (format === 'png' ? image.png({ compressionLevel: 9 }) : image.jpeg({ quality: 90 })).toBuffer();
  } catch {
    throw bad(`could not be read as a ${format.toUpperCase()} image`);
  }
}

/** CSS that fetches: `url(...)` not pointing inside the document, `@import`, `image-set(...)`. */
const EXTERNAL_CSS = /url\(\s*['"]?\s*(?!#)|@import|image-set\(/i;

/**
 * CSS text with its escapes read (`u\72l(` is `url(`, `@\69mport` is `@import`), so the test above
 * sees what a browser would: an escape can spell any keyword.
 */
const unescapeCss = (css: string) =>
  css.replace(/\\([0-9a-f]{1,6})[ \t\n\r\f]?|\\([^\n])/gi, (_, hex: string | undefined, char: string | undefined) => {
    if (hex === undefined) return char ?? '';
    const code = parseInt(hex, 16);
    return String.fromCodePoint(code > 0 && code <= 0x10ffff ? code : 0xfffd);
  });

const fetchesCss = (css: string) => EXTERNAL_CSS.test(unescapeCss(css));

/**
 * SVG through DOMPurify's SVG profile (the sanitiser of the field, over jsdom): no script, no event
 * handler, no foreignObject; on top of its defaults every reference outside the document is
 * removed (`href`/`xlink:href`/`src` not starting with `#`, and style sheets or attributes with
 * `url(...)`, `@import` or `image-set(...)`, escaped or not), so the logo can neither run code nor
 * fetch anything when drawn.
 */
async function sanitizeSvg(bytes: Buffer): Promise<Buffer> {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
  const { window } = new JSDOM('');
  try {
    const purify = createDOMPurify(window);
    purify.addHook('uponSanitizeElement', (node, data) => {
      if (data.tagName === 'style' && fetchesCss(node.textContent ?? '')) node.parentNode?.removeChild(node);
    });
    purify.addHook('uponSanitizeAttribute', (_node, data) => {
      const isReference = /^(xlink:)?href$|^src$/i.test(data.attrName);
      if ((isReference && !data.attrValue.trim().startsWith('#')) || fetchesCss(data.attrValue)) data.keepAttr = false;
    });
    const fragment = purify.sanitize(bytes.toString('utf8'), { USE_PROFILES: { svg: true, svgFilters: true }, RETURN_DOM_FRAGMENT: true });
    const svg = fragment.querySelector('svg');
    if (!svg) throw bad('is not an SVG image');
    return Buffer.from(new window.XMLSerializer().serializeToString(svg), 'utf8');
  } finally {
    window.close();
  }
}

/** A PNG rendering of a (sanitised) SVG about 1000 px on its longer side, for the PDF. */
async function rasterizeSvg(svg: Buffer): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    const { width = 0, height = 0 } = await sharp(svg, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const longer = Math.max(width, height, 1);
    const density = Math.min(Math.max((72 * MAX_EDGE) / longer, 1), 2400);
    return await sharp(svg, { density, limitInputPixels: MAX_INPUT_PIXELS }).png().toBuffer();
  } catch {
    throw bad('is an SVG that cannot be drawn');
  }
}

/**
 * An uploaded logo made safe to store, show and print: at most 1 MB, really a PNG, JPEG or SVG
 * (told by its bytes, not by a name or type the caller states), raster images re-encoded, SVG
 * sanitised. Every refusal is a 422 on `logo_base64`.
 */
export async function processLogo(base64: string): Promise<StoredLogo> {
  const bytes = decodeBase64(base64);
  if (bytes.length === 0) throw bad('is empty');
  if (bytes.length > LOGO_MAX_BYTES) throw bad(`must be at most 1 MB (this file is ${(bytes.length / 1024 / 1024).toFixed(2)} MB)`);
  if (isPng(bytes)) {
    const png = await reencode(bytes, 'png');
    return { bytes: png, mime: 'image/png', raster: null };
  }
  if (isJpeg(bytes)) {
    const jpeg = await reencode(bytes, 'jpeg');
    return { bytes: jpeg, mime: 'image/jpeg', raster: null };
  }
  if (isSvg(bytes)) {
    const svg = await sanitizeSvg(bytes);
    return { bytes: svg, mime: 'image/svg+xml', raster: await rasterizeSvg(svg) };
  }
  throw bad('is not a PNG, JPEG or SVG image');
}
