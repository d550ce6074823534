import { count } from 'drizzle-orm';
import { clients, teamMembers } from '../db/schema/index.ts';
import { createClient } from '../domain/clients/create.ts';
import { atTime, type Scope } from '../domain/scope.ts';
import { createTeamMember } from '../domain/team-members/create.ts';

export const DEMO_MEMBERS = [
  { email: 'ada@demo.localhost', first_name: 'Ada', last_name: 'Lovelace', organization_role: 'Admin', time_zone: 'Europe/London' },
  { email: 'grace@demo.localhost', first_name: 'Grace', last_name: 'Hopper', organization_role: 'Member', time_zone: 'America/New_York' },
  { email: 'linus@demo.localhost', first_name: 'Linus', last_name: 'Torvalds', organization_role: 'Member', time_zone: 'Europe/Helsinki' },
  { email: 'yukihiro@demo.localhost', first_name: 'Yukihiro', last_name: 'Matsumoto', organization_role: 'Member', time_zone: 'Asia/Tokyo' },
];

export const DEMO_CLIENTS = [
  { name: 'Acme Corporation', currency: 'USD', default_invoice_due_in_days: 30, full_address: '1 Road Runner Way, Phoenix, AZ 85001, USA' },
  { name: 'Globex GmbH', currency: 'EUR', default_invoice_due_in_days: 14, full_address: 'Friedrichstraße 12, 10117 Berlin, Germany' },
  { name: 'Umbrella KK', currency: 'JPY', default_invoice_due_in_days: 30, full_address: '1-1 Marunouchi, Chiyoda-ku, Tokyo, Japan' },
];

export function seedTeamAndClients(scope: Scope): void {
  // a millisecond apart, so listings show them in this order after the owner
  const later = (i: number) => atTime(scope, new Date(scope.now.getTime() + 1 + i));
  scope.write((tx) => {
    const members = tx.select({ n: count() }).from(teamMembers).get()?.n ?? 0;
    if (members <= 1) DEMO_MEMBERS.forEach((m, i) => createTeamMember(later(i), m));
    const existing = tx.select({ n: count() }).from(clients).get()?.n ?? 0;
    if (existing === 0) DEMO_CLIENTS.forEach((c, i) => createClient(later(i), c));
  });
}
