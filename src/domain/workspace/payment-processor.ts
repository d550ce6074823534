import { eq } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db } from '../../db/index.ts';
import { paymentProcessors } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import type { processorOutput, updateProcessorInput } from './schemas.ts';

type ProcessorRow = typeof paymentProcessors.$inferSelect;

/** The path of the processor's webhook on a workspace's host (mounted by the server). */
export const STRIPE_WEBHOOK_PATH = '/webhooks/stripe';

/** The last four characters, so a person can tell keys apart without the key being readable. */
const last4 = (secret: string) => secret.slice(-4);

function toRecord(scope: Scope, row: ProcessorRow | undefined): z.output<typeof processorOutput> {
  return {
    payment_processor: {
      provider: 'stripe',
      configured: row !== undefined,
      mode: row ? (row.secretKey.includes('_live_') ? 'live' : 'test') : null,
      secret_key_last4: row ? last4(row.secretKey) : null,
      webhook_secret_last4: row ? last4(row.webhookSecret) : null,
      webhook_url: `${scope.links.publicBase}${STRIPE_WEBHOOK_PATH}`,
      updated_at: row?.updatedAt ?? null,
    },
  };
}

/** The workspace's processor account with its secrets, for the payment door only; null when none. */
export function processorSecrets(db: Db): { secretKey: string; webhookSecret: string } | null {
  const row = db.select().from(paymentProcessors).where(eq(paymentProcessors.provider, 'stripe')).get();
  return row ? { secretKey: row.secretKey, webhookSecret: row.webhookSecret } : null;
}

/** `workspace.paymentProcessor`: Owner/Admin see whether card payment is set up; secrets only as their last 4 characters. */
export function getPaymentProcessor(scope: Scope): z.output<typeof processorOutput> {
  requireAdmin(scope, 'see the card payment settings');
  return toRecord(scope, scope.db.select().from(paymentProcessors).where(eq(paymentProcessors.provider, 'stripe')).get());
}

const SET_UP = 'set up card payments';

/** 403 unless the call may set up card payments: checked before a session is asked for its password (src/trpc/step-up.ts). */
export const assertMaySetUpCardPayments = (scope: Scope): void => requireAdmin(scope, SET_UP);

/** `workspace.updatePaymentProcessor`: Owner/Admin set (or replace) the secret key and webhook secret. */
export function updatePaymentProcessor(scope: Scope, input: z.output<typeof updateProcessorInput>): z.output<typeof processorOutput> {
  requireAdmin(scope, SET_UP);
  return scope.write((tx) => {
    const at = scope.now.toISOString();
    const values = { secretKey: input.secret_key, webhookSecret: input.webhook_secret, updatedAt: at };
    tx.insert(paymentProcessors)
      .values({ provider: 'stripe', ...values, createdAt: at })
      .onConflictDoUpdate({ target: paymentProcessors.provider, set: values })
      .run();
    return toRecord(scope, tx.select().from(paymentProcessors).where(eq(paymentProcessors.provider, 'stripe')).get());
  });
}

/** `workspace.removePaymentProcessor`: card payment off; "Pay now" disappears, webhooks are refused. */
export function removePaymentProcessor(scope: Scope): z.output<typeof processorOutput> {
  requireAdmin(scope, 'turn off card payments');
  return scope.write((tx) => {
    tx.delete(paymentProcessors).where(eq(paymentProcessors.provider, 'stripe')).run();
    return toRecord(scope, undefined);
  });
}
