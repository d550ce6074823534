import { hashPassword } from '../domain/accounts/passwords.ts';
import { accountByEmail, storePassword } from '../domain/accounts/queries.ts';
import type { Scope } from '../domain/scope.ts';

/** Sign-ins for trying the web app; a demo workspace is a playground, so they are printed. */
export const DEMO_LOGINS = [
  { who: 'owner', email: 'owner@demo.localhost', password: 'demo-owner-password' },
  { who: 'member', email: 'grace@demo.localhost', password: 'demo-member-password' },
  { who: 'project manager', email: 'linus@demo.localhost', password: 'demo-manager-password' },
] as const;

/** Gives the demo logins their passwords, once: a password someone changed in the demo stays. */
export async function seedDemoLogins(scope: Scope): Promise<void> {
  for (const login of DEMO_LOGINS) {
    const account = accountByEmail(scope, login.email);
    if (!account || account.passwordHash) continue;
    const hash = await hashPassword(login.password);
    scope.write((tx) => storePassword(tx, account.id, hash, scope.now));
  }
}
