import * as z from 'zod';
import { checkLink, requestPasswordReset, setPasswordWithLink } from '../../domain/accounts/links.ts';
import { getMe } from '../../domain/accounts/me.ts';
import {
  changePasswordInput,
  linkInput,
  linkOutput,
  meRecord,
  noticeOutput,
  requestResetInput,
  setPasswordInput,
  signInInput,
  signOutEverywhereOutput,
} from '../../domain/accounts/schemas.ts';
import { changePassword, signIn, signOut, signOutEverywhere, type SignedIn } from '../../domain/accounts/sign-in.ts';
import type { BrowserRequest } from '../context.ts';
import { guestProcedure, router, sessionProcedure } from '../init.ts';

/** The session goes into the cookie, never into the body (the cookie is HttpOnly for that reason). */
const keepSession = (browser: BrowserRequest, signedIn: SignedIn) => {
  browser.setSession(signedIn.session);
  return signedIn.me;
};

/** Signing in and out of the web app (docs/auth.md). Browsers only: integrations use API keys. */
export const authRouter = router({
  signIn: guestProcedure
    .input(signInInput)
    .output(meRecord)
    .mutation(async ({ ctx, input }) => keepSession(ctx.browser, await signIn(ctx.scope, input, ctx.browser.client))),
  /** What the set-password page shows for a link (whose it is, what for, until when). */
  checkLink: guestProcedure
    .input(linkInput)
    .output(linkOutput)
    .query(({ ctx, input }) => checkLink(ctx.scope, input)),
  /** A first password (workspace creation, invite) or a new one (reset); signs in. */
  setPassword: guestProcedure
    .input(setPasswordInput)
    .output(meRecord)
    .mutation(async ({ ctx, input }) => keepSession(ctx.browser, await setPasswordWithLink(ctx.scope, input, ctx.browser.client))),
  /** Always the same answer, whether or not the e-mail names anyone. */
  requestReset: guestProcedure
    .input(requestResetInput)
    .output(noticeOutput)
    .mutation(({ ctx, input }) => requestPasswordReset(ctx.scope, input)),
  me: sessionProcedure
    .input(z.object({}).optional())
    .output(meRecord)
    .query(({ ctx }) => getMe(ctx.scope, { session_expires_at: ctx.session.expiresAt })),
  signOut: sessionProcedure
    .input(z.object({}).optional())
    .output(noticeOutput)
    .mutation(({ ctx }) => {
      ctx.browser.setSession(null);
      return signOut(ctx.scope, { session_id: ctx.session.sessionId });
    }),
  signOutEverywhere: sessionProcedure
    .input(z.object({}).optional())
    .output(signOutEverywhereOutput)
    .mutation(({ ctx }) => {
      ctx.browser.setSession(null);
      return signOutEverywhere(ctx.scope);
    }),
  changePassword: sessionProcedure
    .input(changePasswordInput)
    .output(noticeOutput)
    .mutation(({ ctx, input }) => changePassword(ctx.scope, { ...input, session_id: ctx.session.sessionId }, ctx.browser.client)),
});
