import { readFileSync } from 'node:fs';
import { getIdentity, updateIdentity } from '../domain/workspace/identity.ts';
import { getPaymentProcessor, removePaymentProcessor, updatePaymentProcessor } from '../domain/workspace/payment-processor.ts';
import { updateIdentityInput, updateProcessorInput } from '../domain/workspace/schemas.ts';
import { AppError } from '../errors.ts';
import { check, parse, UsageError } from './args.ts';
import { openWorkspace, print, scopeOf, type Command } from './context.ts';

/** Each identity flag and the input field it sets. */
const FLAGS = {
  'legal-name': 'legal_name',
  address: 'address',
  'tax-id': 'tax_id',
  'sender-name': 'sender_name',
  'reply-to': 'reply_to',
  'payment-instructions': 'payment_instructions',
  footer: 'invoice_footer',
  locale: 'locale',
} as const;
const FLAG_OF = Object.fromEntries([...Object.entries(FLAGS).map(([flag, field]) => [field, `--${flag}`]), ['logo_base64', '--logo']]);

/** Multi-line values may be typed with `\n` in one shell argument. */
const lines = (value: string) => value.replace(/\\n/g, '\n');

/** Domain errors as the flag they concern (`--logo: must be at most 1 MB …`). */
async function asUsageAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const detail = err instanceof AppError ? err.details?.[0] : undefined;
    if (detail) throw new UsageError(`${FLAG_OF[detail.path] ?? detail.path}: ${detail.message}`);
    if (err instanceof AppError) throw new UsageError(err.message);
    throw err;
  }
}

function readLogo(path: string): string {
  try {
    return readFileSync(path).toString('base64');
  } catch (err) {
    throw new UsageError(`--logo: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * `hourbook workspace identity <subdomain> [--legal-name N] [--address A] [--tax-id T] [--logo FILE |
 * --no-logo] [--sender-name N] [--reply-to E] [--payment-instructions P] [--footer F] [--locale L]
 * [--json]`: changes the flags given (through the same operation and checks as tRPC), then prints
 * the identity. Without flags it only prints it.
 */
export const identity: Command = async (argv, services, io) => {
  const options = Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }]));
  const { values, positionals } = parse(argv, { ...options, logo: { type: 'string' }, 'no-logo': { type: 'boolean' } });
  const handle = openWorkspace(services, positionals[0]);
  const given = Object.entries(FLAGS).flatMap(([flag, field]) => {
    const value = (values as Record<string, string | boolean | undefined>)[flag];
    return typeof value === 'string' ? [[field, lines(value)]] : [];
  });
  if (values.logo !== undefined && values['no-logo']) throw new UsageError('give either --logo FILE or --no-logo');
  const logo = values['no-logo'] ? { logo_base64: null } : values.logo !== undefined ? { logo_base64: readLogo(values.logo) } : {};
  const scope = scopeOf(services, handle);
  const changing = given.length > 0 || 'logo_base64' in logo;
  const input = check('identity', updateIdentityInput, { ...Object.fromEntries(given), ...logo }, FLAG_OF);
  const { identity: record } = changing ? await asUsageAsync(() => updateIdentity(scope, input)) : getIdentity(scope);
  const shown = { ...record, logo: record.logo && { content_type: record.logo.content_type, byte_length: record.logo.byte_length } };
  const human = [
    `${record.display_name}${record.tax_id ? ` (VAT ID ${record.tax_id})` : ''}`,
    record.address,
    `locale ${record.locale}; mail from "${record.sender_name || record.display_name}"${record.reply_to ? `, reply-to ${record.reply_to}` : ''}`,
    `logo: ${record.logo ? `${record.logo.content_type}, ${record.logo.byte_length} bytes` : 'none'}`,
  ].filter(Boolean);
  print(io, values.json, { identity: shown }, human.join('\n'));
};

/**
 * `hourbook workspace payments <subdomain> [--stripe-secret-key K --stripe-webhook-secret S |
 * --from-env | --remove] [--json]`: sets up (or removes) card payment. `--from-env` reads
 * STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, so the secrets stay out of the shell history and the
 * process list. Prints the settings with the secrets' last 4 characters only.
 */
export const payments: Command = (argv, services, io) => {
  const { values, positionals } = parse(argv, {
    'stripe-secret-key': { type: 'string' },
    'stripe-webhook-secret': { type: 'string' },
    'from-env': { type: 'boolean' },
    remove: { type: 'boolean' },
  });
  const handle = openWorkspace(services, positionals[0]);
  const scope = scopeOf(services, handle);
  const secretKey = values['from-env'] ? process.env.STRIPE_SECRET_KEY : values['stripe-secret-key'];
  const webhookSecret = values['from-env'] ? process.env.STRIPE_WEBHOOK_SECRET : values['stripe-webhook-secret'];
  let result;
  if (values.remove) result = removePaymentProcessor(scope);
  else if (secretKey !== undefined || webhookSecret !== undefined) {
    const flags = values['from-env'] ? { secret_key: 'STRIPE_SECRET_KEY', webhook_secret: 'STRIPE_WEBHOOK_SECRET' } : { secret_key: '--stripe-secret-key', webhook_secret: '--stripe-webhook-secret' };
    const input = check('payments', updateProcessorInput, { secret_key: secretKey, webhook_secret: webhookSecret }, flags);
    result = updatePaymentProcessor(scope, input);
  } else result = getPaymentProcessor(scope);
  const p = result.payment_processor;
  const human = p.configured
    ? `card payment (Stripe, ${p.mode} mode) is set up: key …${p.secret_key_last4}, webhook secret …${p.webhook_secret_last4}\npoint the Stripe webhook (checkout.session.completed) at ${p.webhook_url}`
    : 'card payment is not set up';
  print(io, values.json, result, human);
};

