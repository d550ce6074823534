import * as z from 'zod';
import { currentPassword } from '../accounts/passwords.ts';
import { dateTimeOut, email } from '../fields.ts';

/**
 * A BCP 47 locale that ICU (Node's Intl) formats dates and numbers for, stored in its canonical
 * spelling (`de-de` → `de-DE`). An unknown one (`xx`, `en_US`) is refused rather than silently
 * formatted as English.
 */
export const locale = z
  .string({ message: 'must be a locale such as en-US or de-DE' })
  .trim()
  .transform((value, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(value);
      if (canonical && Intl.NumberFormat.supportedLocalesOf(canonical, { localeMatcher: 'lookup' }).length > 0) return canonical;
    } catch {
      // not a well-formed tag: reported below
    }
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a locale this server can format for (e.g. en-US, de-DE, fr-FR)` });
    return z.NEVER;
  });

/** Text that may be cleared with null or ""; Windows line ends become `\n`. */
const clearable = (max: number) =>
  z
    .string({ message: 'must be a string or null' })
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => (v ?? '').replace(/\r\n?/g, '\n').trim());

/** One line, no line breaks: it goes into a mail header or a single PDF line. */
const oneLine = (max: number) =>
  clearable(max).refine((v) => ![...v].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f'), 'must be one line without control characters');

export const updateIdentityInput = z.object({
  legal_name: oneLine(200).optional(),
  address: clearable(1000).describe('Multi-line postal address, kept as entered (lines separated by \\n)').optional(),
  tax_id: oneLine(50).describe('Tax or VAT id, e.g. DE123456789').optional(),
  logo_base64: z
    .string({ message: 'must be a base64 string or null' })
    .max(2_000_000, 'must be at most 1 MB once decoded')
    .nullable()
    .describe('PNG, JPEG or SVG, at most 1 MB, base64 (a data: URL is accepted); null removes the logo')
    .optional(),
  sender_name: oneLine(100).describe('Display name of the From header of mail; default: the legal name, else the workspace name').optional(),
  reply_to: email.nullable().describe('Reply-To of invoice mail when no project of the invoice names one').optional(),
  payment_instructions: clearable(2000).describe('Bank details and other ways to pay, printed on the PDF').optional(),
  invoice_footer: clearable(1000).optional(),
  locale: locale.describe('Locale of dates and amounts on invoices, e.g. de-DE').optional(),
});

export const identityRecord = z.object({
  /** What invoices name the seller: the legal name, else the workspace name. */
  display_name: z.string(),
  legal_name: z.string(),
  address: z.string(),
  tax_id: z.string(),
  logo: z.object({ content_type: z.enum(['image/png', 'image/jpeg', 'image/svg+xml']), base64: z.string(), byte_length: z.number().int() }).nullable(),
  sender_name: z.string(),
  reply_to: z.string().nullable(),
  payment_instructions: z.string(),
  invoice_footer: z.string(),
  locale: z.string(),
  updated_at: dateTimeOut.nullable(),
});
export const identityOutput = z.object({ identity: identityRecord });

const STRIPE_SECRET = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/;
const STRIPE_WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=]{8,}$/;

export const updateProcessorInput = z.object({
  secret_key: z
    .string({ message: 'must be the processor secret key' })
    .trim()
    .regex(STRIPE_SECRET, 'must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)'),
  webhook_secret: z
    .string({ message: 'must be the webhook signing secret' })
    .trim()
    .regex(STRIPE_WEBHOOK_SECRET, 'must be a Stripe webhook signing secret (whsec_…)'),
  current_password: currentPassword,
});

export const processorRecord = z.object({
  provider: z.literal('stripe'),
  configured: z.boolean(),
  /** `test` or `live`, from the key's prefix; null when not configured. */
  mode: z.enum(['test', 'live']).nullable(),
  secret_key_last4: z.string().nullable(),
  webhook_secret_last4: z.string().nullable(),
  /** Where to point the processor's webhook (event `checkout.session.completed`). */
  webhook_url: z.string(),
  updated_at: dateTimeOut.nullable(),
});
export const processorOutput = z.object({ payment_processor: processorRecord });
