import { asc, count } from 'drizzle-orm';
import { clients, recipients } from '../db/schema/index.ts';
import { createRecipient } from '../domain/recipients/create.ts';
import type { ActorScope } from '../domain/scope.ts';

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
export function seedRecipients(owner: ActorScope): void {
  owner.write((tx) => {
    if ((tx.select({ n: count() }).from(recipients).get()?.n ?? 0) > 0) return;
    const all = tx.select().from(clients).orderBy(asc(clients.createdAt), asc(clients.id)).all();
    for (const client of all) {
      for (const recipient of DEMO_RECIPIENTS[client.name] ?? fallback(client.identifier)) createRecipient(owner, { client_id: client.id, recipient });
    }
  });
}
