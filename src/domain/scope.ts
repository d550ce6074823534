import { connectionOf, type Database, type Transaction } from '../db/index.ts';
import type { WorkspaceInfo } from '../workspaces/info.ts';
import type { ActingUser } from './team-members/acting-user.ts';
import type { SecretBox } from './webhooks/secret.ts';

/**
 * The one calling convention of the domain: every operation is `operation(scope, input)`.
 *
 * A scope is built once per call by whoever makes the call (the procedure middleware for both doors,
 * a job's pass, the command line). It carries the workspace's database and facts, the acting user
 * when there is one, the instant the call happens at, and where links point. The operation owns its
 * transaction (`write`) and its authorization, and returns the API object; work that must follow
 * the commit (waking the mail outbox) is registered with `after` and run by the caller once the
 * operation has returned, so no door has to remember it.
 */
export interface Scope {
  readonly db: Database;
  readonly workspace: WorkspaceInfo;
  /**
   * The team member the call acts for. Null when the call carries only the workspace's API key and
   * names no person: the key then speaks for the workspace (what the REST contract allows without
   * an `email`).
   */
  readonly actor: ActingUser | null;
  /** The instant of this call; every rule reads time from here, so tests can set it. */
  readonly now: Date;
  readonly links: Links;
  /** How secrets that must be read again (webhook signing secrets) are stored. */
  readonly secrets: SecretBox;
  /** A value built once per open workspace file, e.g. a module's prepared statements. */
  statements<T>(build: (db: Database) => T): T;
  /**
   * Runs `work` in one write transaction (BEGIN IMMEDIATE), so a refused call changes nothing and
   * concurrent writers are serialised. Calls nest: an inner `write` joins the outer transaction.
   */
  write<T>(work: (tx: Transaction) => T): T;
  /** Asks for work to follow the commit, e.g. `after('outbox')` once mail was queued. */
  after(effect: Effect): void;
}

/** A scope whose call names a person (the body's `email`, or a signed-in session). */
export interface ActorScope extends Scope {
  readonly actor: ActingUser;
}

/**
 * Background work a committed change can ask for: mail delivery, webhook delivery, and `changed`,
 * which every committed write that changed rows asks for so the jobs whose schedule follows the
 * data look again.
 */
export type Effect = 'outbox' | 'webhooks' | 'changed';

export interface Links {
  /** The base URL of this workspace's public pages (invoice links in mail and PDFs). */
  publicBase: string;
  /** The domain of every Message-ID this workspace's mail carries. */
  messageIdDomain: string;
}

/** How the connection's writes are committed (src/workspaces/commit-group.ts). */
export interface Commits {
  /** Opens (or joins) the shared transaction; the promise settles when it commits. */
  join(): Promise<void>;
  /** The open shared transaction's commit, or a resolved promise when none is open. */
  pending(): Promise<void>;
  /** Commits the shared transaction now, if one is open. */
  flush(): void;
}

/** What a caller knows when it opens a scope. */
interface ScopeSource {
  db: Database;
  memo: <T>(build: (db: Database) => T) => T;
  workspace: WorkspaceInfo;
  now: Date;
  links: Links;
  secrets: SecretBox;
  actor?: ActingUser | null;
  commits: Commits;
  /**
   * Whether this call's writes may share a commit with other calls of the same moment (requests,
   * which then wait for `durable()` before answering). Otherwise (jobs, the command line) each
   * write commits at once, after committing whatever shared transaction is open.
   */
  shareCommit?: boolean;
}

/** Work a door adds to the call's transaction, given what the transaction's work returned. */
export type CommitHook = (tx: Transaction, result: unknown) => void;

export interface OpenScope {
  scope: Scope;
  /**
   * Resolves once everything this call wrote (and anything it read that others wrote) is
   * committed; rejects when that commit failed, so the call must not be answered as a success.
   */
  durable(): Promise<void>;
  /** Hands the effects the call registered to `run`; call it once the operation has returned. */
  settle(): void;
  /**
   * Runs `hook` inside the call's first write transaction, right before it commits, with what the
   * operation's work returned: a door records its answer atomically with the change (idempotency
   * keys) without the domain knowing of it. A hook runs once; a call that never writes never runs it.
   */
  beforeCommit(hook: CommitHook): void;
}

/**
 * The connection's one transaction function (better-sqlite3 turns a call inside an open transaction,
 * such as a shared commit, into a savepoint). The work runs on the workspace's drizzle database
 * itself: a drizzle transaction object would be built for every write, and with the relational
 * schema that construction cost more than the write path's own statements.
 */
const immediateTransaction = (db: Database) => {
  const run = connectionOf(db).transaction(<T>(work: () => T): T => work());
  return <T>(work: () => T): T => run.immediate(work) as T;
};

/**
 * Rows the connection changed since it opened (SQLite's `total_changes()`, triggers included); the
 * same before and after a write when the write changed nothing.
 */
const totalChanges = (db: Database) => connectionOf(db).prepare<[], number>('SELECT total_changes()').pluck();

export function openScope(source: ScopeSource, run: (effect: Effect) => void): OpenScope {
  const effects = new Set<Effect>();
  const commits: Promise<void>[] = [];
  const hooks: CommitHook[] = [];
  let current: Transaction | null = null;
  const scope: Scope = {
    db: source.db,
    workspace: source.workspace,
    actor: source.actor ?? null,
    now: source.now,
    links: source.links,
    secrets: source.secrets,
    statements: source.memo,
    write(work) {
      if (current) return work(current);
      if (source.shareCommit) commits.push(source.commits.join());
      else source.commits.flush();
      const changesBefore = source.memo(totalChanges).get()!;
      let changedRows = false;
      const result = source.memo(immediateTransaction)(() => {
        current = source.db;
        try {
          const result = work(source.db);
          // Counted before the door's hooks: a call that changed nothing but recorded its answer
          // (an idempotency key) moved nothing a job schedules by.
          changedRows = source.memo(totalChanges).get()! !== changesBefore;
          for (const hook of hooks.splice(0)) hook(source.db, result);
          return result;
        } finally {
          current = null;
        }
      });
      // Only a write that changed rows can move a job's schedule. A job's own pass that found
      // nothing to do would otherwise wake the jobs again a second later, and so on forever.
      if (changedRows) effects.add('changed');
      return result;
    },
    after(effect) {
      effects.add(effect);
    },
  };
  return {
    scope,
    async durable() {
      // A read may have seen writes of a group still open: wait for it too.
      if (source.shareCommit) commits.push(source.commits.pending());
      await Promise.all(commits);
    },
    settle() {
      for (const effect of effects) run(effect);
      effects.clear();
    },
    beforeCommit(hook) {
      hooks.push(hook);
    },
  };
}

/** The same scope, acting for `actor` (found by the door from the body's `email` or the session). */
export const withActor = (scope: Scope, actor: ActingUser): ActorScope => ({ ...scope, actor });

/** The same scope at another instant (seeders spread their rows over time so listings show an order). */
export const atTime = <S extends Scope>(scope: S, now: Date): S => ({ ...scope, now });
