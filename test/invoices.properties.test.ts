import fc from 'fast-check';
import { count, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices, timeEntries } from '../src/db/schema/index.ts';
import { AppError } from '../src/errors.ts';
import { startTestEnv, type TestEnv } from './helpers/env.ts';
import { makeClient, makeMember, makeProject, makeProjectUser, makeTask, makeTimeEntry } from './helpers/factories.ts';

/**
 * Property tests of invoice money through the real `invoices.create` procedure, against a reference
 * written here from the rules (docs/design.md §5, README "Invoices and e-mail"): BigInt arithmetic on
 * the decimal text of every input, never floats and never the product's own money helpers.
 */

// ---------- the reference: exact decimals ----------

/** ISO 4217 minor-unit digits of the currencies under test (stated here, not asked of the product). */
const DECIMALS = { USD: 2, EUR: 2, JPY: 0, BHD: 3 } as const;
type Currency = keyof typeof DECIMALS;
const CURRENCIES = Object.keys(DECIMALS) as Currency[];

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `units / 10^scale` as plain decimal text: (12345n, 2) → "123.45", (5n, 3) → "0.005". */
function decText(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** The same decimal without trailing fraction zeros ("10.50" → "10.5", "3.000" → "3"). */
function canonical(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * The JSON number a client sends for a decimal text. Every value here has few enough significant
 * digits that the number's shortest text is the decimal itself; checked, so a generator that
 * strays beyond that fails loudly instead of testing something else.
 */
function num(text: string): number {
  const n = Number(text);
  if (canonical(String(n)) !== canonical(text)) throw new Error(`${text} does not survive as a JSON number (${String(n)})`);
  return n;
}

/** Exact text of a number the product returned (no exponent forms at these magnitudes). */
function textOf(n: number): string {
  const s = String(n);
  if (/e/i.test(s)) throw new Error(`unexpected exponent form ${s}`);
  return canonical(s);
}

/** n / d for n ≥ 0, d > 0, rounded to the nearest integer with halves going up. */
function halfUp(n: bigint, d: bigint): bigint {
  if (n < 0n || d <= 0n) throw new Error('halfUp is only needed for non-negative amounts');
  const q = n / d;
  const r = n % d;
  return 2n * r >= d ? q + 1n : q;
}

/** Minor units of a currency as the API's decimal text. */
const moneyText = (minor: bigint, currency: Currency) => canonical(decText(minor, DECIMALS[currency]));

interface TaxSpec {
  /** Percentage in ten-thousandths of a percent (7.25 % → 72500n). */
  pct: bigint;
  selected: boolean | undefined;
}

/** Each selected tax is its percentage of the subtotal, half-up; an unselected (or unsent) flag charges 0. */
function referenceTaxes(subtotal: bigint, taxes: TaxSpec[]): bigint[] {
  return taxes.map((t) => (t.selected === true ? halfUp(subtotal * t.pct, 100n * 10_000n) : 0n));
}

const taxInputs = (taxes: TaxSpec[]) =>
  taxes.map((t, i) => ({
    name: `Tax ${i + 1}`,
    percentage: num(decText(t.pct, 4)),
    ...(t.selected === undefined ? {} : { selected: t.selected }),
  }));

// ---------- generators ----------

/** Ten-thousandths of a percent, 0–100 %, with the awkward ones (halves of a cent) over-represented. */
const percentArb = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.constantFrom(0, 1, 5000, 72500, 88750, 125000, 190000, 500000, 1_000_000),
);
const taxesArb = fc.array(
  fc.record({ pct: percentArb.map(BigInt), selected: fc.option(fc.boolean(), { nil: undefined }) }),
  { minLength: 0, maxLength: 3 },
);

/**
 * Totals the caller may send besides the exact one, in thousandths of the currency's unit: within
 * the 0.01 tolerance (accepted, the stored total is still the computed one) and just beyond it.
 */
const ACCEPTED_DELTAS = [0n, 10n, -10n];
const REJECTED_DELTAS = [20n, -20n, 11n, -11n];

/** Thousandths of a unit of a minor amount (every currency here has at most 3 decimals). */
const toMilli = (minor: bigint, currency: Currency) => minor * pow10(3 - DECIMALS[currency]);

/** A total to send: the reference shifted by `delta` thousandths, or null when it would go below 0. */
function shiftedTotal(reference: bigint, currency: Currency, delta: bigint): number | null {
  const milli = toMilli(reference, currency) + delta;
  return milli < 0n ? null : num(decText(milli, 3));
}

// ---------- the product, through its real door ----------

let env: TestEnv;
let invoiceSeq = 0;
/** Every attempt gets a new number, so a rejected one can be looked for afterwards. */
const nextNumber = () => `PROP-${++invoiceSeq}`;

type CreateInput = Parameters<TestEnv['alpha']['caller']['invoices']['create']>[0];

async function rejection(attempt: Promise<unknown>): Promise<AppError> {
  try {
    await attempt;
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof AppError) return cause;
    throw err;
  }
  throw new Error('expected the request to be rejected');
}

const invoiceRowsNumbered = (number: string) =>
  env.alpha.handle.db.select({ n: count() }).from(invoices).where(eq(invoices.number, number)).get()?.n ?? 0;
const invoiceRowCount = () => env.alpha.handle.db.select({ n: count() }).from(invoices).get()?.n ?? 0;

/**
 * Sends the invoice with a total off by a rejected delta (422 total_mismatch naming the reference,
 * nothing written), then with an accepted one (201; the stored total is the reference, whatever
 * the caller sent). Returns the created invoice's detail.
 */
async function expectMismatchThenCreate(
  input: Omit<CreateInput, 'number' | 'total'>,
  currency: Currency,
  reference: bigint,
  deltas: { rejected: bigint; accepted: bigint },
  afterRejection?: { check: () => void },
) {
  const before = invoiceRowCount();
  const wrongTotal = shiftedTotal(reference, currency, deltas.rejected) ?? shiftedTotal(reference, currency, -deltas.rejected)!;
  const wrongNumber = nextNumber();
  const err = await rejection(env.alpha.caller.invoices.create({ ...input, number: wrongNumber, total: wrongTotal }));
  expect(err.code, err.message).toBe('total_mismatch');
  expect(err.status).toBe(422);
  expect(textOf(err.extra?.computed_total as number)).toBe(moneyText(reference, currency));
  // A rejected request changes nothing.
  expect(invoiceRowsNumbered(wrongNumber)).toBe(0);
  expect(invoiceRowCount()).toBe(before);
  afterRejection?.check();

  const sent = shiftedTotal(reference, currency, deltas.accepted) ?? shiftedTotal(reference, currency, 0n)!;
  const created = await env.alpha.caller.invoices.create({ ...input, number: nextNumber(), total: sent });
  expect(textOf(created.invoice.total)).toBe(moneyText(reference, currency));
  const { invoice } = await env.alpha.caller.invoices.get({ invoice_id: created.invoice.id });
  expect(invoice.currency).toBe(currency);
  expect(textOf(invoice.total)).toBe(moneyText(reference, currency));
  expect(invoiceRowCount()).toBe(before + 1);
  return invoice;
}

function expectTaxes(stored: { amount: number; selected: boolean; percentage: number }[], taxes: TaxSpec[], amounts: bigint[], currency: Currency) {
  expect(stored).toHaveLength(taxes.length);
  stored.forEach((t, i) => {
    expect(t.selected).toBe(taxes[i]!.selected === true);
    expect(textOf(t.percentage)).toBe(canonical(decText(taxes[i]!.pct, 4)));
    expect(textOf(t.amount)).toBe(moneyText(amounts[i]!, currency));
  });
}

beforeAll(async () => {
  // Hundreds of calls in a few seconds: the per-key rate limit is not what these properties test.
  env = await startTestEnv();
});

afterAll(async () => {
  await env?.close();
});

describe('invoice money: property tests against an exact BigInt reference', () => {
  it('service lines: quantity × unit_amount half-up per line, selected taxes of the subtotal half-up, total within 0.01', async () => {
    const clientOf = Object.fromEntries(CURRENCIES.map((c) => [c, makeClient(env.alpha.handle.db, { currency: c }).id])) as Record<Currency, string>;

    const lineArb = fc.record({
      // Thousandths; quantity must be > 0 (0 is a 422), absent means 1.
      quantity: fc.option(fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(1, 5, 125, 333, 500, 1500, 2500)), { nil: undefined }),
      // Minor units of the line's currency, absent means 0.
      unit: fc.option(fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(1, 3, 5, 999, 3333)), {
        nil: undefined,
      }),
    });
    const caseArb = fc.record({
      currency: fc.constantFrom(...CURRENCIES),
      lines: fc.array(lineArb, { minLength: 1, maxLength: 5 }),
      taxes: taxesArb,
      rejected: fc.constantFrom(...REJECTED_DELTAS),
      accepted: fc.constantFrom(...ACCEPTED_DELTAS),
    });

    await fc.assert(
      fc.asyncProperty(caseArb, async ({ currency, lines, taxes, rejected, accepted }) => {
        const dec = DECIMALS[currency];
        const lineAmounts = lines.map((l) => halfUp(BigInt(l.quantity ?? 1000) * BigInt(l.unit ?? 0), 1000n));
        const subtotal = lineAmounts.reduce((a, b) => a + b, 0n);
        const taxAmounts = referenceTaxes(subtotal, taxes);
        const total = subtotal + taxAmounts.reduce((a, b) => a + b, 0n);

        const input = {
          email: env.alpha.ownerEmail,
          client_id: clientOf[currency],
          invoice_services: lines.map((l) => ({
            ...(l.quantity === undefined ? {} : { quantity: num(decText(BigInt(l.quantity), 3)) }),
            ...(l.unit === undefined ? {} : { unit_amount: num(decText(BigInt(l.unit), dec)) }),
          })),
          tax_details: taxInputs(taxes),
        };
        const invoice = await expectMismatchThenCreate(input, currency, total, { rejected, accepted });

        expect(textOf(invoice.subtotal)).toBe(moneyText(subtotal, currency));
        expect(textOf(invoice.tax_total)).toBe(moneyText(total - subtotal, currency));
        expect(invoice.lines.map((l) => textOf(l.amount))).toEqual(lineAmounts.map((a) => moneyText(a, currency)));
        expectTaxes(invoice.taxes, taxes, taxAmounts, currency);
      }),
      { numRuns: 80 },
    );
  });

  it('time-entry lines: hours × rate half-up once per line, by billing method, with write-downs and own rates; a rejected total leaves entries unbilled', async () => {
    const db = env.alpha.handle.db;
    const methods = ['hourly_project_rate', 'hourly_person_rate', 'hourly_task_rate', 'fixed_price_project'] as const;

    /** Entry seconds are already rounded (per time_round_upto), so multiples of 1 s, 1, 6, 15 or 30 min. */
    const entryArb = fc
      .record({ step: fc.constantFrom(1, 60, 360, 900, 1800), k: fc.integer({ min: 1, max: 86400 }) })
      .map(({ step, k }) => Math.max(step, Math.min(86400, Math.floor(k / step) * step)))
      .chain((seconds) => {
        // A write-down at most the entry's hours, in ten-thousandths of an hour: h × 3600 ≤ seconds × 10^4.
        const maxUnits = Math.floor((seconds * 10_000) / 3600);
        return fc.record({
          seconds: fc.constant(seconds),
          hours: fc.option(fc.oneof(fc.integer({ min: 1, max: maxUnits }), fc.constant(maxUnits)), { nil: undefined }),
          // The line's own rate in minor units, else the billing method's.
          rate: fc.option(fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom(1, 3333, 15000)), { nil: undefined }),
          taskRate: fc.integer({ min: 0, max: 10_000_000 }),
          personRate: fc.integer({ min: 0, max: 10_000_000 }),
        });
      });
    const caseArb = fc.record({
      currency: fc.constantFrom(...CURRENCIES),
      method: fc.constantFrom(...methods),
      projectRate: fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom(1, 3333, 15000)),
      entries: fc.array(entryArb, { minLength: 1, maxLength: 4 }),
      taxes: taxesArb,
      rejected: fc.constantFrom(...REJECTED_DELTAS),
      accepted: fc.constantFrom(...ACCEPTED_DELTAS),
    });

    await fc.assert(
      fc.asyncProperty(caseArb, async ({ currency, method, projectRate, entries, taxes, rejected, accepted }) => {
        const dec = DECIMALS[currency];
        const client = makeClient(db, { currency });
        const project = makeProject(db, client.id, { currency, billingMethod: method, hourlyRateMinor: projectRate });
        const rows = entries.map((e) => {
          const task = makeTask(db, project.id, { hourlyRateMinor: e.taskRate });
          const member = makeMember(db);
          makeProjectUser(db, project.id, member.id, { hourlyRateMinor: e.personRate });
          const entry = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id }, { seconds: e.seconds, enteredSeconds: e.seconds });
          return { spec: e, task, member, entry };
        });

        const ratesUsed = rows.map(({ spec }) => {
          if (spec.rate !== undefined) return BigInt(spec.rate);
          switch (method) {
            case 'hourly_project_rate':
              return BigInt(projectRate);
            case 'hourly_person_rate':
              return BigInt(spec.personRate);
            case 'hourly_task_rate':
              return BigInt(spec.taskRate);
            case 'fixed_price_project':
              return 0n;
          }
        });
        const lineAmounts = rows.map(({ spec }, i) =>
          spec.hours !== undefined ? halfUp(BigInt(spec.hours) * ratesUsed[i]!, 10_000n) : halfUp(BigInt(spec.seconds) * ratesUsed[i]!, 3600n),
        );
        const subtotal = lineAmounts.reduce((a, b) => a + b, 0n);
        const taxAmounts = referenceTaxes(subtotal, taxes);
        const total = subtotal + taxAmounts.reduce((a, b) => a + b, 0n);

        const ids = rows.map((r) => r.entry.id);
        const statuses = () =>
          db
            .select({ id: timeEntries.id, status: timeEntries.status, invoiceId: timeEntries.invoiceId })
            .from(timeEntries)
            .where(inArray(timeEntries.id, ids))
            .all();

        const input = {
          email: env.alpha.ownerEmail,
          client_id: client.id,
          invoice_time_entries: rows.map(({ spec, task, member, entry }) => ({
            time_entry_id: entry.id,
            project_id: project.id,
            task_id: task.id,
            user_id: member.id,
            ...(spec.hours === undefined ? {} : { hours: num(decText(BigInt(spec.hours), 4)) }),
            ...(spec.rate === undefined ? {} : { hourly_rate: num(decText(BigInt(spec.rate), dec)) }),
          })),
          tax_details: taxInputs(taxes),
        };
        const invoice = await expectMismatchThenCreate(
          input,
          currency,
          total,
          { rejected, accepted },
          {
            check: () => {
              for (const s of statuses()) expect(s).toMatchObject({ status: 'unbilled', invoiceId: null });
            },
          },
        );

        expect(textOf(invoice.subtotal)).toBe(moneyText(subtotal, currency));
        expect(invoice.lines.map((l) => textOf(l.amount))).toEqual(lineAmounts.map((a) => moneyText(a, currency)));
        expect(invoice.lines.map((l) => textOf(l.hourly_rate!))).toEqual(ratesUsed.map((r) => moneyText(r, currency)));
        rows.forEach(({ spec }, i) => {
          if (spec.hours !== undefined) expect(textOf(invoice.lines[i]!.hours!)).toBe(canonical(decText(BigInt(spec.hours), 4)));
        });
        expectTaxes(invoice.taxes, taxes, taxAmounts, currency);
        for (const s of statuses()) expect(s).toMatchObject({ status: 'billed', invoiceId: invoice.id });
      }),
      { numRuns: 60 },
    );
  });

  it('a write-down above the entry by one ten-thousandth of an hour is refused and bills nothing', async () => {
    const db = env.alpha.handle.db;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 86399 }), async (seconds) => {
        const client = makeClient(db);
        const project = makeProject(db, client.id);
        const task = makeTask(db, project.id);
        const member = makeMember(db);
        makeProjectUser(db, project.id, member.id);
        const entry = makeTimeEntry(db, { clientId: client.id, projectId: project.id, taskId: task.id, userId: member.id }, { seconds, enteredSeconds: seconds });
        // The smallest stated hours strictly above the entry's duration: h × 3600 > seconds × 10^4.
        const over = BigInt(Math.floor((seconds * 10_000) / 3600) + 1);
        const number = nextNumber();
        const err = await rejection(
          env.alpha.caller.invoices.create({
            email: env.alpha.ownerEmail,
            client_id: client.id,
            number,
            total: 0,
            invoice_time_entries: [{ time_entry_id: entry.id, project_id: project.id, task_id: task.id, user_id: member.id, hours: num(decText(over, 4)) }],
          }),
        );
        expect(err.status).toBe(422);
        expect(err.code).toBe('validation_failed');
        expect(err.details?.map((d) => d.path)).toContain('invoice_time_entries.0.hours');
        expect(invoiceRowsNumbered(number)).toBe(0);
        expect(db.select({ status: timeEntries.status }).from(timeEntries).where(eq(timeEntries.id, entry.id)).get()?.status).toBe('unbilled');
      }),
      { numRuns: 40 },
    );
  });

  it('amounts near the bounds are exact or refused with 422 amount_too_large, never rounded and never a 500', async () => {
    const db = env.alpha.handle.db;
    const clientOf = Object.fromEntries(CURRENCIES.map((c) => [c, makeClient(db, { currency: c }).id])) as Record<Currency, string>;
    // Past 10^15 minor units an amount in major units may need 16 digits, more than a JSON number keeps.
    const MAX_EXACT = 10n ** 15n;
    /** Integers spread over every magnitude from 1 to 10^maxExp. */
    const magnitude = (maxExp: number) => fc.integer({ min: 0, max: maxExp }).chain((e) => fc.integer({ min: 1, max: 10 ** e }));
    const roundTrips = (text: string) => canonical(String(Number(text))) === canonical(text);

    const caseArb = fc.constantFrom(...CURRENCIES).chain((currency) =>
      fc.record({
        currency: fc.constant(currency),
        lines: fc.array(
          fc.record({
            // Quantity ≤ 1e9 and unit_amount ≤ 1e12 are the documented bounds.
            quantity: magnitude(12),
            unit: magnitude(12 + DECIMALS[currency])
              .filter((u) => BigInt(u) <= 10n ** 12n * pow10(DECIMALS[currency]))
              .filter((u) => roundTrips(decText(BigInt(u), DECIMALS[currency]))),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        taxes: taxesArb,
      }),
    );

    await fc.assert(
      fc.asyncProperty(caseArb, async ({ currency, lines, taxes }) => {
        const dec = DECIMALS[currency];
        const lineAmounts = lines.map((l) => halfUp(BigInt(l.quantity) * BigInt(l.unit), 1000n));
        const subtotal = lineAmounts.reduce((a, b) => a + b, 0n);
        const taxAmounts = referenceTaxes(subtotal, taxes);
        const taxTotal = taxAmounts.reduce((a, b) => a + b, 0n);
        const total = subtotal + taxTotal;
        const overflows = [...lineAmounts, subtotal, taxTotal, total].some((a) => a > MAX_EXACT);
        const maxTotalMinor = 10n ** 13n * pow10(dec);
        // The nearest JSON number to the exact total is within the 0.01 tolerance at these magnitudes.
        const sentTotal = Number(decText(total > maxTotalMinor ? maxTotalMinor : total, dec));
        const number = nextNumber();
        const attempt = env.alpha.caller.invoices.create({
          email: env.alpha.ownerEmail,
          client_id: clientOf[currency],
          number,
          total: sentTotal,
          invoice_services: lines.map((l) => ({ quantity: num(decText(BigInt(l.quantity), 3)), unit_amount: num(decText(BigInt(l.unit), dec)) })),
          tax_details: taxInputs(taxes),
        });
        if (overflows || total > maxTotalMinor) {
          const err = await rejection(attempt);
          expect(err.status).toBe(422);
          if (overflows) expect(err.code, err.message).toBe('amount_too_large');
          else {
            expect(err.code, err.message).toBe('total_mismatch');
            expect(err.extra?.computed_total).toBe(Number(decText(total, dec)));
          }
          expect(invoiceRowsNumbered(number)).toBe(0);
          return;
        }
        const created = await attempt;
        const row = db.select().from(invoices).where(eq(invoices.id, created.invoice.id)).get();
        expect(row?.subtotalMinor).toBe(Number(subtotal));
        expect(row?.taxMinor).toBe(Number(taxTotal));
        expect(row?.totalMinor).toBe(Number(total));
        // and the answer states it exactly: its JSON number reads back as the same decimal
        expect(canonical(String(created.invoice.total))).toBe(canonical(decText(total, dec)));
      }),
      { numRuns: 60 },
    );
  });
});
