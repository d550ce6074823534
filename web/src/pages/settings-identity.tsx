import { useMutation } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { useMe } from '../session.tsx';
import { Field, FormError, formErrors } from '../ui/field.tsx';
import { Actions, Form, TextField } from '../ui/form.tsx';
import { useNotice } from '../ui/notice.tsx';

type Identity = Outputs['workspace']['settings']['identity'];

/** The server's limit (docs/invoices.md); checked here too so a big file is refused before it is sent. */
const LOGO_MAX_BYTES = 1024 * 1024;
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'];
const LOCALES = ['en-US', 'en-GB', 'de-DE', 'de-AT', 'de-CH', 'fr-FR', 'fr-CH', 'it-IT', 'es-ES', 'nl-NL', 'pt-PT', 'pl-PL', 'sv-SE', 'da-DK', 'nb-NO', 'fi-FI', 'ja-JP'];

/** The logo as the form holds it: unchanged, a new file (a data: URL), or removed. */
type Logo = { state: 'kept' } | { state: 'new'; dataUrl: string; name: string } | { state: 'removed' };

const TEXT_FIELDS = ['legal_name', 'address', 'tax_id', 'sender_name', 'reply_to', 'payment_instructions', 'invoice_footer', 'locale'] as const;
type TextFields = Record<(typeof TEXT_FIELDS)[number], string>;
const fieldsOf = (identity: Identity) => Object.fromEntries(TEXT_FIELDS.map((f) => [f, identity[f] ?? ''])) as TextFields;

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });

/** A date and an amount in the locale typed, or why it cannot be used. */
function localeSample(locale: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(locale.trim());
    if (!canonical) return '';
    const date = new Intl.DateTimeFormat(canonical, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date('2026-11-18T00:00:00Z'));
    const money = new Intl.NumberFormat(canonical, { style: 'currency', currency: 'EUR' }).format(1234.5);
    return `Dates and amounts look like: ${date} · ${money}`;
  } catch {
    return 'Not a locale tag (e.g. en-US, de-DE)';
  }
}

function LogoField({ identity, logo, onLogo, error }: { identity: Identity; logo: Logo; onLogo: (logo: Logo) => void; error: string | undefined }) {
  const [problem, setProblem] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const src = logo.state === 'new' ? logo.dataUrl : logo.state === 'kept' && identity.logo ? `data:${identity.logo.content_type};base64,${identity.logo.base64}` : null;
  const shown = problem ?? error;
  const pick = async (file: File | undefined) => {
    setProblem(null);
    if (!file) return;
    if (file.size > LOGO_MAX_BYTES) return setProblem(`${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; the logo may be at most 1 MB`);
    if (file.type && !LOGO_TYPES.includes(file.type)) return setProblem(`${file.name} is not a PNG, JPEG or SVG image`);
    try {
      onLogo({ state: 'new', dataUrl: await readAsDataUrl(file), name: file.name });
    } catch (err) {
      setProblem(`${file.name} could not be read: ${(err as Error).message}`);
    }
  };
  return (
    <div className="span logo-field">
      <div className="logo-preview" aria-live="polite">
        {src ? <img src={src} alt={logo.state === 'new' ? `New logo: ${logo.name}` : 'The current logo'} /> : <span className="muted">No logo</span>}
      </div>
      <div className="stack">
        <Field label="Logo" hint="PNG, JPEG or SVG, at most 1 MB. Shown on invoices, PDFs and the public page." error={shown ?? undefined}>
          {(p) => <input {...p} ref={input} type="file" accept={LOGO_TYPES.join(',')} onChange={(e) => void pick(e.target.files?.[0])} />}
        </Field>
        {(logo.state === 'new' || (logo.state === 'kept' && identity.logo)) && (
          <div>
            <button
              type="button"
              className="button"
              onClick={() => {
                if (input.current) input.current.value = '';
                onLogo(logo.state === 'new' ? { state: 'kept' } : { state: 'removed' });
              }}
            >
              {logo.state === 'new' ? 'Keep the current logo' : 'Remove the logo'}
            </button>
          </div>
        )}
        {logo.state === 'removed' && <p className="hint">The logo is removed when you save.</p>}
      </div>
    </div>
  );
}

/**
 * Who the workspace is on invoices, PDFs, public pages and e-mail (`workspace.updateIdentity`):
 * every field saved at once; the logo only when a new one was picked or it was removed.
 */
export function IdentityForm({ identity, workspaceName }: { identity: Identity; workspaceName: string }) {
  const me = useMe();
  const notify = useNotice();
  const [form, setForm] = useState(() => fieldsOf(identity));
  const [logo, setLogo] = useState<Logo>({ state: 'kept' });
  const [saves, setSaves] = useState(0);
  const set = (name: keyof TextFields) => (value: string) => setForm({ ...form, [name]: value });
  const save = useMutation({
    mutationFn: () =>
      api.workspace.updateIdentity.mutate({
        email: me.member.email,
        ...form,
        reply_to: form.reply_to.trim() || null,
        ...(logo.state === 'new' && { logo_base64: logo.dataUrl }),
        ...(logo.state === 'removed' && { logo_base64: null }),
      }),
    onSuccess: (saved) => {
      // As stored: trimmed, the locale in its canonical spelling.
      setForm(fieldsOf(saved.identity));
      setLogo({ state: 'kept' });
      setSaves((n) => n + 1);
      notify('Identity saved: new invoices, PDFs and e-mail use it');
    },
  });
  const errors = formErrors(save.error ? apiError(save.error) : null, [...TEXT_FIELDS, 'logo_base64']);
  const sample = localeSample(form.locale);
  return (
    <Form className="grid-form roomy" onSubmit={() => save.mutate()} aria-labelledby="identity">
      <FormError message={errors.form} />
      <TextField label="Legal name" hint={`On invoices as the seller; empty: “${workspaceName}”`} maxLength={200} value={form.legal_name} onChange={set('legal_name')} error={errors.field('legal_name')} />
      <TextField label="Tax or VAT id" hint="e.g. DE123456789" maxLength={50} value={form.tax_id} onChange={set('tax_id')} error={errors.field('tax_id')} />
      <TextField label="Address" className="span" hint="As it should be printed, one line per line" multiline value={form.address} onChange={set('address')} error={errors.field('address')} />
      <LogoField key={saves} identity={identity} logo={logo} onLogo={setLogo} error={errors.field('logo_base64')} />
      <TextField label="Sender name of e-mail" hint="Empty: the legal name" maxLength={100} value={form.sender_name} onChange={set('sender_name')} error={errors.field('sender_name')} />
      <TextField label="Reply-to address" type="email" hint="Where clients' replies go, unless a project names its own" value={form.reply_to} onChange={set('reply_to')} error={errors.field('reply_to')} />
      <TextField label="Payment instructions" className="span" hint="Bank details and other ways to pay, printed on every invoice" multiline value={form.payment_instructions} onChange={set('payment_instructions')} error={errors.field('payment_instructions')} />
      <TextField label="Invoice footer" className="span" multiline value={form.invoice_footer} onChange={set('invoice_footer')} error={errors.field('invoice_footer')} />
      <TextField label="Locale" hint={errors.field('locale') ? undefined : sample} list="locales" autoComplete="off" value={form.locale} onChange={set('locale')} error={errors.field('locale')} />
      <datalist id="locales">
        {LOCALES.map((l) => (
          <option key={l} value={l} />
        ))}
      </datalist>
      <div className="span">
        <Actions submit="Save identity" pending={save.isPending} />
      </div>
    </Form>
  );
}
