import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { formatMoney } from '../format.ts';
import { maysee, useMe, type Audience } from '../session.tsx';

/** The report pages, as tabs under the page title; a Member sees only the time report. */
const REPORTS: readonly { path: string; label: string; who: Audience }[] = [
  { path: '/reports', label: 'Time', who: 'all' },
  { path: '/reports/unbilled', label: 'Unbilled work', who: 'admin' },
  { path: '/reports/receivables', label: 'Receivables', who: 'admin' },
];

export function ReportTabs() {
  const me = useMe();
  const [location] = useLocation();
  const tabs = REPORTS.filter((r) => maysee(me, r.who));
  if (tabs.length < 2) return null;
  return (
    <nav aria-label="Reports" className="tabs">
      <ul>
        {tabs.map((r) => (
          <li key={r.path}>
            <Link href={r.path} aria-current={location === r.path ? 'page' : undefined}>
              {r.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** One part of a report page: a panel headed by its title, which names it for screen readers. */
export function ReportSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A report's totals as terms and values, in a region named "Totals". */
export function TotalsPanel({ facts }: { facts: readonly (readonly [string, ReactNode])[] }) {
  return (
    <section aria-label="Totals" className="panel">
      <dl className="facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** A CSV download of what the page shows (the session's cookie goes along; docs/reports.md). */
export function CsvLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <a className="button" href={href} download>
      {children}
    </a>
  );
}

/** Amounts in several currencies, one line each: they are never added together. */
export function Amounts({ amounts }: { amounts: readonly { currency: string; amount: number }[] }) {
  if (amounts.length === 0) return <span className="muted">—</span>;
  return (
    <span className="amounts">
      {amounts.map((a) => (
        <span key={a.currency}>{formatMoney(a.amount, a.currency)}</span>
      ))}
    </span>
  );
}

interface PickProps {
  label: string;
  options: readonly { id: string; name: string; note?: string | undefined }[];
  picked: readonly string[];
  onChange: (ids: string[]) => void;
  /** What an empty choice means, e.g. "All clients". */
  none: string;
}

/**
 * A filter over many values: a disclosure (summary says what is chosen) holding a labelled group
 * of checkboxes. Native <details>, so it opens with Enter or Space and a screen reader announces
 * whether it is expanded.
 */
export function MultiPick({ label, options, picked, onChange, none }: PickProps) {
  const id = useId();
  const box = useRef<HTMLDetailsElement>(null);
  // A list that floats over the page closes like a menu: Escape (focus back on its button) or a click elsewhere.
  useEffect(() => {
    const details = box.current;
    if (!details) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !details.open) return;
      details.open = false;
      details.querySelector('summary')?.focus();
    };
    const onClick = (e: MouseEvent) => {
      if (details.open && !details.contains(e.target as Node)) details.open = false;
    };
    details.addEventListener('keydown', onKey);
    document.addEventListener('click', onClick);
    return () => {
      details.removeEventListener('keydown', onKey);
      document.removeEventListener('click', onClick);
    };
  }, []);
  const chosen = options.filter((o) => picked.includes(o.id));
  const summary = chosen.length === 0 ? none : chosen.length === 1 ? chosen[0]!.name : `${chosen.length} chosen`;
  const toggle = (value: string, on: boolean) => onChange(on ? [...picked, value] : picked.filter((p) => p !== value));
  return (
    <div className="field">
      <span className="pick-label" aria-hidden="true">
        {label}
      </span>
      <details className="multi-pick" ref={box}>
        <summary>
          <span className="visually-hidden">{label}: </span>
          {summary}
        </summary>
        <fieldset>
          <legend className="visually-hidden">{label}</legend>
          {options.length === 0 && <p className="muted">Nothing to choose from.</p>}
          <ul className="plain">
            {options.map((o) => (
              <li key={o.id} className="check">
                <input id={`${id}-${o.id}`} type="checkbox" checked={picked.includes(o.id)} onChange={(e) => toggle(o.id, e.target.checked)} />
                <label htmlFor={`${id}-${o.id}`}>
                  {o.name}
                  {o.note && <span className="muted"> {o.note}</span>}
                </label>
              </li>
            ))}
          </ul>
          {picked.length > 0 && (
            <button type="button" className="button small" onClick={() => onChange([])}>
              Clear<span className="visually-hidden"> {label}</span>
            </button>
          )}
        </fieldset>
      </details>
    </div>
  );
}
