import { eq } from 'drizzle-orm';
import { roles } from '../db/schema/index.ts';
import { conflict, invalidField } from '../errors.ts';
import { requireAdmin } from './access.ts';
import type { Scope } from './scope.ts';

/** Every workspace starts with these; names are case-sensitive. */
export const BUILT_IN_ROLES = ['Owner', 'Admin', 'Member'] as const;

const ROLE_NAME = /^[A-Za-z][A-Za-z0-9 _-]{0,49}$/;

/** Adds an organization role (the command line's `role add`). */
export function addRole(scope: Scope, input: { name: string }): { role: string } {
  requireAdmin(scope, 'add roles');
  const { name } = input;
  if (!ROLE_NAME.test(name)) throw invalidField('name', 'a role name starts with a letter and has at most 50 letters, digits, spaces, - or _');
  return scope.write((tx) => {
    if (tx.select({ name: roles.name }).from(roles).where(eq(roles.name, name)).get()) {
      throw conflict('role_exists', `The role ${name} already exists`);
    }
    tx.insert(roles).values({ name, createdAt: scope.now.toISOString() }).run();
    return { role: name };
  });
}
