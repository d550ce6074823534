import { Field } from './field.tsx';

/** Which records a list shows by status: active (the default), archived, or all (''). */
export type StatusChoice = 'active' | 'archived' | '';

/** The Status filter of a list of clients or projects. */
export function StatusFilter({ value, onChange }: { value: StatusChoice; onChange: (value: StatusChoice) => void }) {
  return (
    <Field label="Status" className="inline">
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value as StatusChoice)}>
          <option value="active">Active</option>
          <option value="archived">Archived</option>
          <option value="">All</option>
        </select>
      )}
    </Field>
  );
}
