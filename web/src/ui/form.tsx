import { useEffect, useRef, type FormEvent, type HTMLAttributes, type InputHTMLAttributes, type ReactNode } from 'react';
import { Field } from './field.tsx';

/** A form the app validates on the server: no browser bubbles, submit runs `onSubmit`. */
export function Form({ onSubmit, children, ...rest }: { onSubmit: () => void; children: ReactNode } & Omit<HTMLAttributes<HTMLFormElement>, 'onSubmit'>) {
  return (
    <form
      {...rest}
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/**
 * Where focus goes once a form's call has answered and the form is still there: disabling the
 * submit button while the form was sent dropped focus to <body>, so a keyboard or screen-reader
 * user was left nowhere. It goes to the first field marked invalid, else the form's error, else
 * back to the button; never away from a control the person has moved to meanwhile.
 */
function useFocusAfterSend(pending: boolean) {
  const button = useRef<HTMLButtonElement>(null);
  const wasPending = useRef(pending);
  useEffect(() => {
    const answered = wasPending.current && !pending;
    wasPending.current = pending;
    const active = document.activeElement;
    if (!answered || !button.current || (active && active !== document.body)) return;
    const form = button.current.closest('form');
    const target = form?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form?.querySelector<HTMLElement>('.form-error') ?? button.current;
    target.focus();
  }, [pending]);
  return button;
}

/**
 * A form's submit button: disabled while the form is sent (`pending`) or while `disabled`, and
 * where focus goes once the call has answered (`useFocusAfterSend`).
 */
export function SubmitButton({ pending, disabled, className = 'button primary', children }: { pending: boolean; disabled?: boolean; className?: string; children: ReactNode }) {
  const button = useFocusAfterSend(pending);
  return (
    <button ref={button} className={className} type="submit" disabled={pending || disabled}>
      {children}
    </button>
  );
}

/** The submit button of a form (disabled while it is sent), and Cancel where there is one. */
export function Actions({ submit, pending, onCancel, children, className }: { submit: ReactNode; pending: boolean; onCancel?: () => void; children?: ReactNode; className?: string }) {
  return (
    <div className={className ? `row ${className}` : 'row'}>
      <SubmitButton pending={pending}>{submit}</SubmitButton>
      {children}
      {onCancel && (
        <button className="button" type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

interface TextProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value' | 'id'> {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
  multiline?: boolean;
}

/** A labelled text input (or textarea) with its hint and error. */
export function TextField({ label, value, onChange, error, hint, className, multiline, ...input }: TextProps) {
  return (
    <Field label={label} error={error} hint={hint} className={className}>
      {(p) => (multiline ? <textarea {...p} rows={3} value={value} onChange={(e) => onChange(e.target.value)} /> : <input {...input} {...p} value={value} onChange={(e) => onChange(e.target.value)} />)}
    </Field>
  );
}

interface SelectProps<V extends string> {
  label: ReactNode;
  value: V;
  onChange: (value: V) => void;
  options: readonly (readonly [V, string])[];
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
  disabled?: boolean;
}

/** A labelled select over `[value, label]` pairs. */
export function SelectField<V extends string>({ label, value, onChange, options, error, hint, className, disabled }: SelectProps<V>) {
  return (
    <Field label={label} error={error} hint={hint} className={className}>
      {(p) => (
        <select {...p} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as V)}>
          {options.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
