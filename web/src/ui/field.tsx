import { useId, type ReactNode } from 'react';
import type { ApiError } from '../api.ts';
import { asSentence, forPeople, type MessageContext } from '../messages.ts';

/** What a control needs to be labelled and tied to its error for a screen reader. */
export interface ControlProps {
  id: string;
  'aria-invalid': boolean | undefined;
  'aria-describedby': string | undefined;
}

interface FieldProps {
  label: ReactNode;
  /** The domain's message for this field, shown under it. */
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}

/** A label, its control, a hint and the error for it, wired with ids (WCAG 1.3.1, 3.3.1). */
export function Field({ label, error, hint, className, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A checkbox with its label to the right. */
export function Check({ label, checked, onChange, disabled }: { label: ReactNode; checked: boolean; onChange: (value: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <div className="check">
      <input id={id} type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** The error of a whole form (what no single field explains), announced as it appears. */
export function FormError({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert" tabIndex={-1}>
      {message}
    </p>
  );
}

export interface FormErrors {
  /** The message for a field (its own path, or a path inside it such as `checklist_items.0.id`). */
  field: (name: string) => string | undefined;
  /** What no shown field explains, for the top of the form. */
  form: string | null;
}

/**
 * Places a failed call's messages next to the fields they concern: the 422 `details` by path, and
 * business errors that name no path by their `code` (e.g. time_entry_locked → the date field).
 * Whatever lands on no field of this form is the form's own error. Messages written for the API
 * are said in the app's words first (`forPeople`; `context.currency` formats amounts in them), and
 * a field's message starts with a capital.
 */
export function formErrors(failed: ApiError | null, fields: readonly string[], codes: Record<string, string> = {}, context: MessageContext = {}): FormErrors {
  const byField = new Map<string, string>();
  const error = failed && forPeople(failed, context);
  if (error) {
    const fieldOf = (path: string) => fields.find((f) => path === f || path.startsWith(`${f}.`));
    for (const detail of error.details) {
      const field = fieldOf(detail.path);
      // Under a label, a message reads as a sentence: any the app has no words of its own for starts with a capital.
      if (field && !byField.has(field)) byField.set(field, asSentence(detail.message));
    }
    const coded = codes[error.code];
    if (coded && fields.includes(coded) && !byField.has(coded)) byField.set(coded, error.message);
  }
  return {
    field: (name) => byField.get(name),
    form: error && byField.size === 0 ? error.message : null,
  };
}
