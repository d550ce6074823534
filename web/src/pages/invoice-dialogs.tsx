import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, apiError, type Outputs } from '../api.ts';
import { todayIn } from '../dates.ts';
import { amountInputText, formatMoney } from '../format.ts';
import { useMe } from '../session.tsx';
import { AmountField, useAmountInput } from '../ui/amount-field.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Check, FormError, formErrors } from '../ui/field.tsx';
import { Actions, Form, SelectField, TextField, SubmitButton } from '../ui/form.tsx';
import { focusWhenShown } from '../ui/hooks.ts';
import { useNotice } from '../ui/notice.tsx';
import { RecipientChecks } from './invoice-form-fields.tsx';

/** The invoice page's dialogs: record a payment, send (or send again), void. */

export type View = Outputs['invoices']['view'];
type Invoice = View['invoice'];

export const PAYMENT_METHODS = [
  ['bank_transfer', 'Bank transfer'],
  ['card', 'Card'],
  ['cash', 'Cash'],
  ['check', 'Check'],
  ['other', 'Other'],
] as const;
type Method = (typeof PAYMENT_METHODS)[number][0];

/** The amount of a payment (at most the balance), the day it arrived, how, and a note or reference. */
export function RecordPaymentDialog({ invoice, onClose }: { invoice: Invoice; onClose: () => void }) {
  const me = useMe();
  const notify = useNotice();
  // Typed as people write amounts here (1,234.50 in en, 1.234,50 in de); read exactly, checked before sending.
  const amount = useAmountInput(amountInputText(invoice.balance_due, invoice.currency), invoice.currency);
  const [paidOn, setPaidOn] = useState(todayIn(me.workspace.time_zone));
  const [method, setMethod] = useState<Method>('bank_transfer');
  const [reference, setReference] = useState('');
  const record = useMutation({
    mutationFn: () =>
      api.invoices.recordPayment.mutate({ email: me.member.email, invoice_id: invoice.id, amount: amount.value!, paid_on: paidOn, method, ...(reference.trim() && { reference }) }),
    onSuccess: ({ payment, invoice: after }) => {
      notify(`${formatMoney(payment.amount, payment.currency)} recorded; ${after.balance_due > 0 ? `${formatMoney(after.balance_due, after.currency)} still due` : 'the invoice is paid'}`);
      onClose();
      focusWhenShown('payments-title');
    },
  });
  const errors = formErrors(
    record.error ? apiError(record.error) : null,
    ['amount', 'paid_on', 'method', 'reference'],
    { payment_exceeds_balance: 'amount', invoice_already_paid: 'amount' },
    { currency: invoice.currency },
  );
  return (
    <Dialog title={`Record a payment on ${invoice.number}`} onClose={onClose}>
      <Form
        className="stack"
        onSubmit={() => amount.whenValid(() => record.mutate())}
      >
        <p className="muted">Balance due: {formatMoney(invoice.balance_due, invoice.currency)}</p>
        <FormError message={errors.form} />
        <AmountField label={`Amount (${invoice.currency})`} amount={amount} error={errors.field('amount')} hint="Less than the balance records a partial payment" />
        <TextField label="Paid on" type="date" value={paidOn} onChange={setPaidOn} error={errors.field('paid_on')} />
        <SelectField label="Method" value={method} options={PAYMENT_METHODS} onChange={setMethod} error={errors.field('method')} />
        <TextField label="Note or reference" hint="Bank reference, cheque number, …" maxLength={200} value={reference} onChange={setReference} error={errors.field('reference')} />
        <Actions submit="Record payment" pending={record.isPending} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}

/**
 * Sends a draft (`invoices.send`) or an issued invoice again (`invoices.resend`) to the client's
 * recipients chosen here, with an optional subject and message.
 */
export function SendDialog({ view, again, onClose }: { view: View; again: boolean; onClose: () => void }) {
  const me = useMe();
  const notify = useNotice();
  const { invoice, client_recipients: recipients } = view;
  // The draft's own recipients (chosen at creation or in the editor) while any is still on the client; else all of them.
  const [chosen, setChosen] = useState<Set<string>>(() => {
    const own = recipients.filter((r) => invoice.recipient_ids.includes(r.id));
    return new Set((own.length ? own : recipients).map((r) => r.id));
  });
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [attach, setAttach] = useState(true);
  const [copy, setCopy] = useState(false);
  const send = useMutation({
    mutationFn: () => {
      const input = {
        email: me.member.email,
        invoice_id: invoice.id,
        invoice_details: {
          recipient_ids: [...chosen],
          ...(subject.trim() && { subject }),
          ...(message.trim() && { message }),
          attach_pdf_invoice: attach,
          send_me_a_copy: copy,
        },
      };
      return again ? api.invoices.resend.mutate(input) : api.invoices.send.mutate(input);
    },
    onSuccess: ({ queued }) => {
      notify(`${invoice.number}: ${queued} ${queued === 1 ? 'message' : 'messages'} queued`);
      onClose();
      focusWhenShown('mail-title');
    },
  });
  const errors = formErrors(send.error ? apiError(send.error) : null, ['invoice_details.recipient_ids', 'invoice_details.subject', 'invoice_details.message']);
  const title = `${again ? 'Send again' : 'Send'}: ${invoice.number}`;
  if (recipients.length === 0) {
    return (
      <Dialog title={title} onClose={onClose}>
        <p>
          {view.client_name} has no recipients. <Link href={`/clients/${invoice.client_id}`}>Add one on the client’s page</Link> to send invoices by e-mail.
        </p>
      </Dialog>
    );
  }
  return (
    <Dialog title={title} onClose={onClose}>
      <Form className="stack" onSubmit={() => send.mutate()}>
        <FormError message={errors.form} />
        <fieldset>
          <legend>Recipients</legend>
          <RecipientChecks recipients={recipients} chosen={chosen} onChosen={setChosen} error={errors.field('invoice_details.recipient_ids')} />
        </fieldset>
        <TextField label="Subject (optional)" hint="Empty: the usual subject with the invoice number" maxLength={255} value={subject} onChange={setSubject} error={errors.field('invoice_details.subject')} />
        <TextField label="Message (optional)" multiline value={message} onChange={setMessage} error={errors.field('invoice_details.message')} />
        <Check label="Attach the PDF" checked={attach} onChange={setAttach} />
        <Check label={`Send me a copy (${me.member.email})`} checked={copy} onChange={setCopy} />
        <Actions submit={again ? 'Send again' : 'Send now'} pending={send.isPending} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}

/**
 * Voids an invoice. A draft is simply cancelled; an issued one stays as sent and a credit note
 * with its own number cancels it (the reason is printed on it).
 */
export function VoidDialog({ invoice, onClose }: { invoice: Invoice; onClose: () => void }) {
  const me = useMe();
  const notify = useNotice();
  const draft = invoice.status === 'draft';
  const [reason, setReason] = useState('');
  const [number, setNumber] = useState('');
  const voided = useMutation({
    mutationFn: () =>
      api.invoices.void.mutate({ email: me.member.email, invoice_id: invoice.id, ...(!draft && reason.trim() && { reason }), ...(!draft && number.trim() && { credit_note_number: number }) }),
    onSuccess: ({ credit_note }) => {
      notify(credit_note ? `${invoice.number} voided; credit note ${credit_note.number} issued` : `${invoice.number} voided`);
      onClose();
      focusWhenShown(credit_note ? 'related-link' : 'invoice-title');
    },
  });
  const errors = formErrors(voided.error ? apiError(voided.error) : null, ['reason', 'credit_note_number'], { invoice_number_taken: 'credit_note_number' });
  return (
    <Dialog title={`Void ${invoice.number}`} onClose={onClose}>
      <Form className="stack" onSubmit={() => voided.mutate()}>
        {draft ? (
          <p>The draft is cancelled; its time entries become unbilled again. Nothing was sent, so no credit note is needed.</p>
        ) : (
          <>
            <p>
              {invoice.number} stays as the client received it, marked void. A <strong>credit note</strong> with its own number cancels it, and its time entries become unbilled
              again.
              {invoice.amount_paid > 0 && ` The ${formatMoney(invoice.amount_paid, invoice.currency)} already paid stays recorded on it (to be refunded outside hourbook).`}
            </p>
            <TextField label="Reason (printed on the credit note, optional)" multiline value={reason} onChange={setReason} error={errors.field('reason')} />
            <TextField label="Credit note number (optional)" hint="Empty: the next of the credit note series" value={number} onChange={setNumber} error={errors.field('credit_note_number')} />
          </>
        )}
        <FormError message={errors.form} />
        <div className="row">
          <SubmitButton className="button danger" pending={voided.isPending}>
            {draft ? 'Void the draft' : 'Void and issue a credit note'}
          </SubmitButton>
          <button className="button" type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </Form>
    </Dialog>
  );
}
