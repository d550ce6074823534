import { eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { roles } from '../db/schema/index.ts';
import { conflict, invalidField } from '../errors.ts';

/** Every workspace starts with these; names are case-sensitive. */
export const BUILT_IN_ROLES = ['Owner', 'Admin', 'Member'] as const;

const ROLE_NAME = /^[A-Za-z][A-Za-z0-9 _-]{0,49}$/;

export function addRole(db: Db, name: string, now: Date): void {
  if (!ROLE_NAME.test(name)) throw invalidField('name', 'a role name starts with a letter and has at most 50 letters, digits, spaces, - or _');
  if (db.select({ name: roles.name }).from(roles).where(eq(roles.name, name)).get()) {
    throw conflict('role_exists', `The role ${name} already exists`);
  }
  db.insert(roles).values({ name, createdAt: now.toISOString() }).run();
}
