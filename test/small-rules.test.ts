import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wakeServer } from '../src/cli/wake-server.ts';
import { greeted } from '../src/mail/templates/layout.ts';
import { controlSocketPath } from '../src/ops/control-socket.ts';
import { glyphFilter } from '../src/pdf/fonts.ts';

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

describe('glyphFilter', () => {
  it('draws a tab as a space, a character the font lacks as "?", and keeps line breaks', () => {
    const filter = glyphFilter((c) => c >= 0x20 && c < 0x7f);
    expect(filter('a\tb\nc 消費税')).toBe('a b\nc ???');
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
