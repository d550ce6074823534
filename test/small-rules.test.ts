import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wakeServer } from '../src/cli/wake-server.ts';
import { greeted } from '../src/mail/templates/layout.ts';
import { controlSocketPath } from '../src/ops/control-socket.ts';
import { glyphRuns } from '../src/pdf/fonts.ts';

/** Small rules with no door of their own: the greeting of a message, the PDF's glyph filter, a command's wake. */
const dir = mkdtempSync(join(tmpdir(), 'hourbook-small-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('greeted', () => {
  it('capitalises a first word in lower case, not a link, an address or a word with capitals inside', () => {
    expect(greeted('please find the invoice.', 'Ann')).toBe('Hello Ann,\n\nPlease find the invoice.');
    expect(greeted('https://pay.example.com/x is the link', 'Ann')).toBe('Hello Ann,\n\nhttps://pay.example.com/x is the link');
    expect(greeted('www.example.com has it', 'Ann')).toBe('Hello Ann,\n\nwww.example.com has it');
    expect(greeted('iPhone users: tap the link', 'Ann')).toBe('Hello Ann,\n\niPhone users: tap the link');
  });
});

describe('glyphRuns', () => {
  const ascii = (c: number) => c >= 0x20 && c < 0x7f;
  it('draws a tab as a space, a character no font has as "?", and keeps line breaks', () => {
    expect(glyphRuns([ascii])('a\tb\nc 消費税')).toEqual([{ text: 'a b\nc ???', font: 0 }]);
  });
  it('draws each character in the first font of the chain that has it, the later fonts asked only for what the earlier lack', () => {
    const asked: number[] = [];
    const han = (c: number) => (asked.push(c), c >= 0x4e00 && c <= 0x9fff);
    expect(glyphRuns([ascii, han])('Tax 消費税 10%\u{1F600}')).toEqual([
      { text: 'Tax ', font: 0 },
      { text: '消費税', font: 1 },
      { text: ' 10%?', font: 0 },
    ]);
    expect(asked.map((c) => String.fromCodePoint(c)).join('')).toBe('消費税\u{1F600}');
  });
});

describe('wakeServer', () => {
  it('gives up on a server that accepts but never answers, so the command can end', async () => {
    const asked: string[] = [];
    const stuck = createServer((req) => asked.push(req.url ?? ''));
    await new Promise<void>((resolve) => stuck.listen(controlSocketPath(dir), resolve));
    try {
      const started = Date.now();
      await wakeServer(dir, new Map([['acme', new Set(['webhooks'] as const)]]));
      expect(Date.now() - started).toBeLessThan(4000);
      expect(asked).toEqual(['/_cluster/workspaces/acme/wake']);
    } finally {
      stuck.closeAllConnections();
      stuck.close();
    }
  });
});
