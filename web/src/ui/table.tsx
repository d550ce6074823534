import type { ReactNode } from 'react';

export interface Column<T> {
  header: ReactNode;
  /** The column's name where a row is shown as a card (phones); defaults to the header. */
  label?: string;
  cell: (row: T) => ReactNode;
  align?: 'end';
  className?: string;
}

interface TableProps<T> {
  caption: ReactNode;
  /** Hide the caption visually (the page heading says it) but keep it for screen readers. */
  captionHidden?: boolean;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty: ReactNode;
  footer?: ReactNode;
}

/**
 * A data table: a real <table> (headers read with each cell), which on a narrow screen becomes one
 * card per row with each value labelled, so nothing scrolls sideways.
 */
export function Table<T>({ caption, captionHidden, columns, rows, rowKey, empty, footer }: TableProps<T>) {
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <table className="table">
      <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" className={c.align === 'end' ? 'num' : undefined}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c, i) => (
              <td key={i} data-label={c.label ?? (typeof c.header === 'string' ? c.header : '')} className={[c.align === 'end' ? 'num' : '', c.className ?? ''].join(' ').trim() || undefined}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
      {footer && <tfoot>{footer}</tfoot>}
    </table>
  );
}
