/**
 * The one way `npm run bench` reports a figure: beside the floor measured in the same run (a bare
 * handler, the library alone) as a ratio, with the goal and whether it is met. Sections add rows;
 * scripts/bench.ts prints them all at the end. A count check that fails (requests answered vs rows
 * stored) is not a figure: it throws, and the bench exits non-zero.
 */

export interface Goal {
  /** `ratio`: hourbook ÷ floor must be ≥ (`at least`) or ≤ (`at most`) the bound; `value`: the figure itself. */
  of: 'ratio' | 'value';
  atLeast?: number;
  atMost?: number;
}

export interface Row {
  section: string;
  figure: string;
  value: number;
  unit: string;
  floor?: { value: number; label: string };
  goal?: Goal;
}

const rows: Row[] = [];

export const record = (row: Row): Row => {
  rows.push(row);
  return row;
};

const fmt = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : Number(n.toPrecision(3)).toString());

export function ratioOf(row: Row): number | null {
  return row.floor && row.floor.value !== 0 ? row.value / row.floor.value : null;
}

export function isMet(row: Row): boolean | null {
  if (!row.goal) return null;
  const subject = row.goal.of === 'ratio' ? ratioOf(row) : row.value;
  if (subject === null) return null;
  return (row.goal.atLeast === undefined || subject >= row.goal.atLeast) && (row.goal.atMost === undefined || subject <= row.goal.atMost);
}

function goalText(row: Row): string {
  const g = row.goal;
  if (!g) return '';
  const what = g.of === 'ratio' ? '×' : ` ${row.unit}`;
  return [g.atLeast !== undefined ? `≥ ${g.atLeast}${what}` : '', g.atMost !== undefined ? `≤ ${g.atMost}${what}` : ''].filter(Boolean).join(', ');
}

/** The rows of this run as a table (and as JSON lines when BENCH_JSON is set). */
export function printRows(only?: string): void {
  const shown = rows.filter((r) => !only || r.section === only);
  console.table(
    shown.map((r) => {
      const ratio = ratioOf(r);
      const met = isMet(r);
      return {
        figure: r.figure,
        hourbook: `${fmt(r.value)} ${r.unit}`,
        floor: r.floor ? `${fmt(r.floor.value)} ${r.unit} (${r.floor.label})` : '',
        ratio: ratio === null ? '' : `${ratio.toFixed(2)}×`,
        goal: goalText(r),
        met: met === null ? '' : met ? 'yes' : 'NO',
      };
    }),
  );
  if (process.env.BENCH_JSON) for (const r of shown) console.log(JSON.stringify({ ...r, ratio: ratioOf(r), met: isMet(r) }));
}

export const allRows = (): readonly Row[] => rows;

/** Rows a section measured in a process of its own (scripts/bench.ts), kept as if recorded here. */
export const adoptRows = (measured: readonly Row[]): void => {
  rows.push(...measured);
};

/** A count that must hold (every acknowledged write stored): throws, so the bench exits non-zero. */
export function assertCount(what: string, ok: boolean, detail: string): void {
  if (!ok) throw new Error(`count check failed: ${what}: ${detail}`);
}
