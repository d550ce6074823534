import { useState, type ReactNode } from 'react';
import { minorToNumber } from '../amount.ts';
import { readAmount } from '../format.ts';
import { TextField } from './form.tsx';

/**
 * An amount field's state: the text as typed, what it reads as in the workspace's locale (exact
 * minor units), and its message once the person left the field or submitted.
 */
export function useAmountInput(initial: string, currency: string, opts: { positive?: boolean; optional?: boolean } = { positive: true }) {
  const [text, setText] = useState(initial);
  const [checked, setChecked] = useState(false);
  const empty = text.trim() === '';
  const parsed = empty && opts.optional ? null : readAmount(text, currency, opts);
  return {
    text,
    setText,
    /** Shows the message, if any (on leaving the field, on submit). */
    check: () => setChecked(true),
    /** On submit: shows the message, or runs `send` when the field reads as an amount. */
    whenValid: (send: () => void) => {
      setChecked(true);
      if (parsed === null || parsed.ok) send();
    },
    /** The amount as the API takes it (a decimal number built from its exact text); null when empty or not an amount. */
    value: parsed?.ok ? minorToNumber(parsed.value, currency) : null,
    valid: parsed === null || parsed.ok,
    error: checked && parsed && !parsed.ok ? parsed.message : undefined,
  };
}
export type AmountInput = ReturnType<typeof useAmountInput>;

/** A labelled amount field: its own message (not an amount) first, else the server's. */
export function AmountField({ label, amount, error, hint, className }: { label: ReactNode; amount: AmountInput; error?: string | undefined; hint?: ReactNode; className?: string }) {
  return (
    <TextField
      label={label}
      inputMode="decimal"
      autoComplete="off"
      value={amount.text}
      onChange={amount.setText}
      onBlur={amount.check}
      error={amount.error ?? error}
      hint={hint}
      className={className}
    />
  );
}
