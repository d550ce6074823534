import { eq, sql } from 'drizzle-orm';
import type * as z from 'zod';
import type { Database, Db } from '../../db/index.ts';
import { workspaceIdentity } from '../../db/schema/index.ts';
import { requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { processLogo, type LogoMime, type StoredLogo } from './logo.ts';
import type { identityOutput, updateIdentityInput } from './schemas.ts';

type IdentityRow = typeof workspaceIdentity.$inferSelect;

/** Who the workspace is, with every default applied; what PDFs, mail and public pages show. */
export interface Identity {
  /** The legal name, else the workspace's name. */
  name: string;
  legalName: string;
  address: string;
  taxId: string;
  logo: { bytes: Buffer; mime: LogoMime } | null;
  /** What a PDF can draw (PNG or JPEG), or null without a logo. */
  printLogo: Buffer | null;
  /** The From display name: sender name, else legal name, else workspace name. */
  senderName: string;
  replyTo: string | null;
  paymentInstructions: string;
  invoiceFooter: string;
  locale: string;
  updatedAt: string | null;
  /** Moves with every change (0 before the first); part of the PDF cache key. */
  revision: number;
}

const IDENTITY_ID = 1;
export const DEFAULT_LOCALE = 'en-US';

const statements = (db: Database) => ({
  row: db.select().from(workspaceIdentity).where(eq(workspaceIdentity.id, IDENTITY_ID)).prepare(),
});

function identityOf(row: IdentityRow | undefined, workspaceName: string): Identity {
  const legalName = row?.legalName ?? '';
  const name = legalName || workspaceName;
  const logo = row?.logo && row.logoMime ? { bytes: row.logo, mime: row.logoMime } : null;
  return {
    name,
    legalName,
    address: row?.address ?? '',
    taxId: row?.taxId ?? '',
    logo,
    printLogo: logo ? (logo.mime === 'image/svg+xml' ? (row?.logoRaster ?? null) : logo.bytes) : null,
    senderName: row?.senderName || name,
    replyTo: row?.replyTo ?? null,
    paymentInstructions: row?.paymentInstructions ?? '',
    invoiceFooter: row?.invoiceFooter ?? '',
    locale: row?.locale ?? DEFAULT_LOCALE,
    updatedAt: row?.updatedAt ?? null,
    revision: row?.revision ?? 0,
  };
}

/**
 * The workspace's identity, read when used (it can change at any time, unlike the workspace row
 * the scope carries); one prepared single-row read.
 */
export function readIdentity(scope: Pick<Scope, 'statements' | 'workspace'>): Identity {
  return identityOf(scope.statements(statements).row.get(), scope.workspace.name);
}

/** The same inside a transaction (`tx`), for operations that write what they read. */
export const readIdentityIn = (db: Db, workspaceName: string): Identity =>
  identityOf(db.select().from(workspaceIdentity).where(eq(workspaceIdentity.id, IDENTITY_ID)).get(), workspaceName);

function toIdentityRecord(identity: Identity, row: IdentityRow | undefined): z.output<typeof identityOutput>['identity'] {
  return {
    display_name: identity.name,
    legal_name: identity.legalName,
    address: identity.address,
    tax_id: identity.taxId,
    logo: identity.logo ? { content_type: identity.logo.mime, base64: identity.logo.bytes.toString('base64'), byte_length: identity.logo.bytes.length } : null,
    sender_name: row?.senderName ?? '',
    reply_to: identity.replyTo,
    payment_instructions: identity.paymentInstructions,
    invoice_footer: identity.invoiceFooter,
    locale: identity.locale,
    updated_at: identity.updatedAt,
  };
}

/** `workspace.identity`: the identity as stored (sender name as set, "" meaning the default). */
export function getIdentity(scope: Scope): z.output<typeof identityOutput> {
  requireAdmin(scope, "see the workspace's identity");
  const row = scope.statements(statements).row.get();
  return { identity: toIdentityRecord(identityOf(row, scope.workspace.name), row) };
}

/** The stored columns a request changes; fields left out keep their value. */
function changesOf(input: z.output<typeof updateIdentityInput>, logo: StoredLogo | null | undefined): Partial<IdentityRow> {
  return {
    ...(input.legal_name !== undefined && { legalName: input.legal_name }),
    ...(input.address !== undefined && { address: input.address }),
    ...(input.tax_id !== undefined && { taxId: input.tax_id }),
    ...(logo !== undefined && { logo: logo?.bytes ?? null, logoMime: logo?.mime ?? null, logoRaster: logo?.raster ?? null }),
    ...(input.sender_name !== undefined && { senderName: input.sender_name }),
    ...(input.reply_to !== undefined && { replyTo: input.reply_to }),
    ...(input.payment_instructions !== undefined && { paymentInstructions: input.payment_instructions }),
    ...(input.invoice_footer !== undefined && { invoiceFooter: input.invoice_footer }),
    ...(input.locale !== undefined && { locale: input.locale }),
  };
}

/**
 * `workspace.updateIdentity` and `hourbook workspace identity`: Owner/Admin only. The logo is
 * checked and re-encoded first (no transaction is open while images are decoded); then one write
 * changes the given fields, so a refused logo changes nothing else either.
 */
export async function updateIdentity(scope: Scope, input: z.output<typeof updateIdentityInput>): Promise<z.output<typeof identityOutput>> {
  requireAdmin(scope, "change the workspace's identity");
  const logo = input.logo_base64 === undefined ? undefined : input.logo_base64 === null ? null : await processLogo(input.logo_base64);
  return scope.write((tx) => {
    const at = scope.now.toISOString();
    const changes = changesOf(input, logo);
    tx.insert(workspaceIdentity)
      .values({ id: IDENTITY_ID, ...changes, updatedAt: at })
      .onConflictDoUpdate({ target: workspaceIdentity.id, set: { ...changes, revision: sql`${workspaceIdentity.revision} + 1`, updatedAt: at } })
      .run();
    const row = tx.select().from(workspaceIdentity).where(eq(workspaceIdentity.id, IDENTITY_ID)).get();
    return { identity: toIdentityRecord(identityOf(row, scope.workspace.name), row) };
  });
}
