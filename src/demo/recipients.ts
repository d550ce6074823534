import { and, asc, count, eq } from 'drizzle-orm';
import { clients, recipients, teamMembers } from '../db/schema/index.ts';
import { createRecipient } from '../domain/recipients/recipients.ts';
import type { WorkspaceHandle } from '../workspaces/handle.ts';

/** Who receives the demo clients' invoices, by client name; other clients get a billing address. */
const DEMO_RECIPIENTS: Record<string, { name: string; email: string }[]> = {
  'Acme Corporation': [
    { name: 'Wile E. Coyote', email: 'wile.coyote@acme.example' },
    { name: 'Acme Accounts Payable', email: 'ap@acme.example' },
  ],
  'Globex GmbH': [{ name: 'Hank Scorpio', email: 'hank.scorpio@globex.example' }],
  'Umbrella KK': [
    { name: 'Albert Wesker', email: 'a.wesker@umbrella.example' },
    { name: 'Umbrella Finance', email: 'finance@umbrella.example' },
  ],
};

const fallback = (identifier: string) => [{ name: 'Billing', email: `billing@${identifier.toLowerCase()}.example` }];

/** One or two recipients per client, added by the Owner, only while the workspace has none. */
export function seedRecipients(handle: WorkspaceHandle, now: Date): void {
  handle.db.transaction((tx) => {
    if ((tx.select({ n: count() }).from(recipients).get()?.n ?? 0) > 0) return;
    const owner = tx
      .select({ id: teamMembers.id })
      .from(teamMembers)
      .where(and(eq(teamMembers.organizationRole, 'Owner'), eq(teamMembers.active, true)))
      .orderBy(asc(teamMembers.createdAt))
      .get();
    const all = tx.select().from(clients).orderBy(asc(clients.createdAt), asc(clients.id)).all();
    for (const client of all) {
      for (const r of DEMO_RECIPIENTS[client.name] ?? fallback(client.identifier)) {
        createRecipient(tx, client.id, r, owner?.id ?? null, now);
      }
    }
  });
}
