import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under a source folder, with its text. */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => {
      const file = join(d.parentPath, d.name);
      return { file, text: readFileSync(file, 'utf8') };
    });
}

const src = sources('src');
const invoiceArea = src.filter((s) => /src\/(domain\/invoices|pdf|mail|public)\/|src\/trpc\/routers\/invoices\.ts/.test(s.file));

describe('one implementation of each helper in the invoices area', () => {
  it('calendar dates come from time/calendar.ts (no second copy)', () => {
    expect(existsSync('src/domain/invoices/dates.ts')).toBe(false);
    for (const s of invoiceArea) expect(s.text, s.file).not.toMatch(/new Intl\.DateTimeFormat/);
  });

  it('hours are formatted by time/hours.ts hoursOf only', () => {
    for (const s of invoiceArea) expect(s.text, s.file).not.toMatch(/\/\s*3600\)\s*\*\s*10+/);
  });

  it('one safeFileName, in src/pdf/invoice.ts', () => {
    const defs = src.filter((s) => /safeFileName\s*=/.test(s.text)).map((s) => s.file);
    expect(defs).toEqual([join('src', 'pdf', 'invoice.ts')]);
    const inline = invoiceArea.filter((s) => s.text.includes('.replace(/[^A-Za-z0-9._-]+/g')).map((s) => s.file);
    expect(inline).toEqual([join('src', 'pdf', 'invoice.ts')]);
  });

  it('invoice creation uses handle.memo and findLiveRecipients, not its own cache and query', () => {
    const create = readFileSync('src/domain/invoices/create.ts', 'utf8');
    expect(create).not.toMatch(/WeakMap/);
    expect(create).toMatch(/\.memo\(/);
    expect(create).toMatch(/findLiveRecipients\(/);
    expect(create).not.toMatch(/from\(recipients\)/);
  });
});
