import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvHeader, csvLines, csvTable, textCell, UTF8_BOM, type CsvColumn } from '../src/domain/reports/csv.ts';

interface Row {
  note: string;
  count: number;
  amount: string;
}

const columns: CsvColumn<Row>[] = [
  { header: 'note', kind: 'text', value: (r) => r.note },
  { header: 'count', kind: 'number', value: (r) => r.count },
  { header: 'amount', kind: 'number', value: (r) => r.amount },
];

/** What a spreadsheet should show for a text cell: the text, with a quote in front of a formula start. */
const shown = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

const roundTrip = (rows: Row[], bom: boolean) => parse(csvHeader(columns, bom) + csvLines(columns, rows), { bom: true, relax_column_count: false }) as string[][];

describe('CSV writer', () => {
  it('round-trips any text through a real CSV parser (RFC 4180), numbers as numbers', () => {
    const row = fc.record({
      note: fc.string({ unit: fc.constantFrom('a', 'é', '€', '"', ',', '\n', '\r', ' ', '=', '+', '-', '@', '\t', '漢', '😀') , maxLength: 12 }),
      count: fc.integer({ min: -1e9, max: 1e9 }),
      amount: fc.integer({ min: -1e12, max: 1e12 }).map((m) => `${m < 0 ? '-' : ''}${Math.floor(Math.abs(m) / 100)}.${String(Math.abs(m) % 100).padStart(2, '0')}`),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), fc.boolean(), (rows, bom) => {
        const records = roundTrip(rows, bom);
        expect(records[0]).toEqual(['note', 'count', 'amount']);
        expect(records.slice(1)).toEqual(rows.map((r) => [r.note === '' ? '' : shown(r.note), String(r.count), r.amount]));
      }),
      { numRuns: 300 },
    );
  });

  it('neutralises formulas in text cells and keeps negative numbers numeric', () => {
    const rows: Row[] = [
      { note: '=HYPERLINK("http://evil.test","click")', count: -5, amount: '-12.50' },
      { note: '-5 minutes of setup', count: 0, amount: '0.00' },
      { note: '+1 555', count: 1, amount: '1.00' },
      { note: '@SUM(A1:A9)', count: 2, amount: '2.00' },
      { note: '\tindented', count: 3, amount: '3.00' },
      { note: '\rcarriage', count: 4, amount: '4.00' },
      { note: 'plain = fine', count: 5, amount: '5.00' },
    ];
    const text = csvLines(columns, rows);
    expect(text.split('\r\n').slice(0, 2)).toEqual([`"'=HYPERLINK(""http://evil.test"",""click"")",-5,-12.50`, "'-5 minutes of setup,0,0.00"]);
    expect(roundTrip(rows, false).slice(1).map((r) => r[0])).toEqual([
      `'=HYPERLINK("http://evil.test","click")`,
      "'-5 minutes of setup",
      "'+1 555",
      "'@SUM(A1:A9)",
      "'\tindented",
      "'\rcarriage",
      'plain = fine',
    ]);
    // A number column that somehow held words is written as (neutralised) text, never as a formula.
    expect(csvLines([{ header: 'n', kind: 'number', value: () => '=1+2' }], [{}])).toBe("'=1+2\r\n");
  });

  it('ends lines in CRLF, quotes only where needed, and writes the BOM only when asked', () => {
    expect(textCell('a,b')).toBe('"a,b"');
    expect(textCell('say "hi"')).toBe('"say ""hi"""');
    expect(textCell('two\nlines')).toBe('"two\nlines"');
    expect(textCell('Müller')).toBe('Müller');
    expect(csvHeader(columns, true).startsWith(UTF8_BOM)).toBe(true);
    expect(csvHeader(columns, false)).toBe('note,count,amount\r\n');
    expect(csvLines(columns, [{ note: '', count: 1, amount: '' }])).toBe(',1,\r\n');
    expect([...csvTable(columns, [{ note: 'x', count: 1, amount: '1.00' }], false, 1)]).toEqual(['note,count,amount\r\n', 'x,1,1.00\r\n']);
  });
});
