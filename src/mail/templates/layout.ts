/**
 * Plain text and HTML from the same paragraphs, so the two parts of a message never say different
 * things. Everything a person or the database wrote is escaped; the HTML is a single column with
 * inline styles, the only styling mail programs reliably keep.
 */

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** One block of a message. */
export type Block =
  | { kind: 'text'; text: string }
  /** A call to action: a button in HTML, "label: url" in text. */
  | { kind: 'link'; label: string; url: string }
  /** Label/value rows (amount, due date), a small table in HTML. */
  | { kind: 'facts'; rows: [string, string][] };

export interface RenderedMail {
  text: string;
  html: string;
}

/** Paragraphs at blank lines; each takes the direction of its first letter (a Hebrew message is set right to left). */
const paragraphHtml = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p dir="auto" style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');

function blockHtml(block: Block): string {
  switch (block.kind) {
    case 'text':
      return paragraphHtml(block.text);
    case 'link':
      return `<p style="margin:0 0 16px"><a href="${escapeHtml(block.url)}" style="display:inline-block;padding:10px 18px;background:#1a4fa3;color:#ffffff;border-radius:4px;text-decoration:none;font-weight:600">${escapeHtml(block.label)}</a></p>`;
    case 'facts':
      return `<table role="presentation" style="border-collapse:collapse;margin:0 0 16px">${block.rows
        .map(([k, v]) => `<tr><td style="padding:2px 16px 2px 0;color:#555555">${escapeHtml(k)}</td><td style="padding:2px 0;font-weight:600">${escapeHtml(v)}</td></tr>`)
        .join('')}</table>`;
  }
}

function blockText(block: Block): string {
  switch (block.kind) {
    case 'text':
      return block.text;
    case 'link':
      return `${block.label}: ${block.url}`;
    case 'facts':
      return block.rows.map(([k, v]) => `${k}: ${v}`).join('\n');
  }
}

/** The message in both forms; `footer` (the sender's name and address) closes it, in grey in HTML. */
export function renderMail(blocks: Block[], footer: string): RenderedMail {
  const text = [...blocks.map(blockText), footer].filter(Boolean).join('\n\n');
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="margin:0;padding:0;background:#f4f5f7"><div style="max-width:560px;margin:0 auto;padding:24px 16px;font:15px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#222222">
<div style="background:#ffffff;border-radius:6px;padding:24px">${blocks.map(blockHtml).join('')}</div>
<div style="color:#777777;font-size:13px;padding:12px 4px">${paragraphHtml(footer)}</div></div></body></html>`;
  return { text, html };
}

const GREETING = /^\s*(hello|hi|hey|dear|good (morning|afternoon|evening)|hallo|guten tag|bonjour|hola|ciao)\b/i;
const BARE_GREETING = /^\s*(hello|hi|hey|hallo|bonjour|hola|ciao)\s*[,!]/i;

/**
 * A first word written wholly in lower case and followed by a space ("please find"), not one with
 * capitals inside ("iPhone", "eBay") nor the start of a link or an address ("https://…", "www.…").
 */
const LOWER_FIRST_WORD = /^\p{Ll}+(?=[\s,]|$)/u;

/** The message's first word capitalised when it is wholly lower case: it now opens a paragraph after the greeting. */
const capitalised = (message: string) => message.replace(LOWER_FIRST_WORD, (w) => w.charAt(0).toUpperCase() + w.slice(1));

/**
 * The recipient greeted by name: a message that opens with a bare greeting ("Hello,") gets the name
 * put in ("Hello Ann,"); one that greets someone already is kept as written; any other gets
 * "Hello <name>," above it, and its first word a capital when it was all lower case ("please find"
 * → "Please find"). Without a name, "Hello,".
 */
export function greeted(message: string, name: string | null | undefined): string {
  const who = name?.trim();
  const bare = BARE_GREETING.exec(message);
  if (bare) return who ? message.replace(BARE_GREETING, (m) => `${m.trim().slice(0, -1).trim()} ${who}${m.trim().slice(-1)}`) : message;
  if (GREETING.test(message)) return message;
  return `Hello${who ? ` ${who}` : ''},\n\n${capitalised(message.trimStart())}`;
}
