import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { useMe } from '../session.tsx';
import { useWithPassword } from '../ui/confirm-password.tsx';
import { FormError, formErrors } from '../ui/field.tsx';
import { Actions, Form, TextField } from '../ui/form.tsx';
import { useNotice } from '../ui/notice.tsx';

type Processor = Outputs['workspace']['settings']['payment_processor'];

/**
 * Card payment through Stripe: whether it is set up (the secrets only as their last 4 characters),
 * the webhook address to give Stripe, and the form to set or replace the two secrets, or remove them.
 */
export function CardPayment({ processor }: { processor: Processor }) {
  const me = useMe();
  const withPassword = useWithPassword();
  const notify = useNotice();
  const [secretKey, setSecretKey] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const save = useMutation({
    mutationFn: () => withPassword((current_password) => api.workspace.updatePaymentProcessor.mutate({ email: me.member.email, secret_key: secretKey, webhook_secret: webhookSecret, current_password })),
    onSuccess: () => {
      setSecretKey('');
      setWebhookSecret('');
      notify('Card payment is on: unpaid invoices show “Pay now” on their public page');
    },
  });
  const remove = useMutation({
    mutationFn: () => api.workspace.removePaymentProcessor.mutate({ email: me.member.email }),
    onSuccess: () => notify('Card payment is off'),
  });
  const errors = formErrors(save.error ? apiError(save.error) : null, ['secret_key', 'webhook_secret']);
  return (
    <>
      {processor.configured ? (
        <dl className="facts">
          <div>
            <dt>Status</dt>
            <dd>On, {processor.mode === 'live' ? 'live mode' : 'test mode'}</dd>
          </div>
          <div>
            <dt>Secret key</dt>
            <dd>
              <code>…{processor.secret_key_last4}</code>
            </dd>
          </div>
          <div>
            <dt>Webhook signing secret</dt>
            <dd>
              <code>…{processor.webhook_secret_last4}</code>
            </dd>
          </div>
          {processor.updated_at && (
            <div>
              <dt>Set</dt>
              <dd>{formatDateTime(processor.updated_at)}</dd>
            </div>
          )}
        </dl>
      ) : (
        <p>Card payment is off. With Stripe keys set here, the public page of an unpaid invoice offers “Pay now”, and payments are recorded when Stripe reports them.</p>
      )}
      <p className="hint">
        In the Stripe dashboard, send <code>checkout.session.completed</code> and <code>checkout.session.async_payment_succeeded</code> events to <code>{processor.webhook_url}</code>
      </p>
      <h3>{processor.configured ? 'Replace the keys' : 'Set up card payment'}</h3>
      <Form className="grid-form roomy" onSubmit={() => save.mutate()} aria-label="Stripe keys">
        <FormError message={errors.form} />
        <TextField label="Secret key" hint="sk_live_…, sk_test_… or a restricted key rk_…" type="password" autoComplete="off" spellCheck={false} value={secretKey} onChange={setSecretKey} error={errors.field('secret_key')} />
        <TextField label="Webhook signing secret" hint="whsec_…, from the webhook’s page in Stripe" type="password" autoComplete="off" spellCheck={false} value={webhookSecret} onChange={setWebhookSecret} error={errors.field('webhook_secret')} />
        <div className="span">
          <Actions submit={processor.configured ? 'Replace the keys' : 'Turn card payment on'} pending={save.isPending}>
            {processor.configured && (
              <button type="button" className="button danger" disabled={remove.isPending} onClick={() => window.confirm('Turn card payment off? “Pay now” disappears from invoices and Stripe’s webhooks are refused.') && remove.mutate()}>
                Turn card payment off
              </button>
            )}
          </Actions>
        </div>
      </Form>
      <FormError message={remove.error ? apiError(remove.error).message : null} />
    </>
  );
}
