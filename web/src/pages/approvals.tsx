import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiError, queryClient, type Outputs } from '../api.ts';
import { mondayOf } from '../dates.ts';
import { formatDate, formatHours, formatLongDay } from '../format.ts';
import { staleDecisionMessage, type DescribedEntry } from '../messages.ts';
import { useMe } from '../session.tsx';
import { Check, FormError } from '../ui/field.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';

type Pending = Outputs['approvals']['pending']['items'][number];

interface Group {
  key: string;
  person: string;
  weekStart: string;
  entries: Pending[];
}

/** Pending time by person and week, the way a manager reviews it. */
function groupsOf(items: Pending[]): Group[] {
  const groups = new Map<string, Group>();
  for (const e of items) {
    const weekStart = mondayOf(e.recorded_on);
    const key = `${e.user_id}|${weekStart}`;
    const group = groups.get(key) ?? { key, person: e.user_name, weekStart, entries: [] };
    group.entries.push(e);
    groups.set(key, group);
  }
  return [...groups.values()];
}

const NOTES_IN_MESSAGE = 40;
const shortNotes = (notes: string) => (notes.length > NOTES_IN_MESSAGE ? `${notes.slice(0, NOTES_IN_MESSAGE - 1)}…` : notes);

/** An entry in words, as a message about it names it: `Grace Hopper’s 1:18 on Tuesday, November 17 (Website · Design: Client workshop)`. */
const described = (e: Pending): DescribedEntry => ({
  id: e.id,
  text: `${e.user_name}’s ${formatHours(e.hours)} on ${formatLongDay(e.recorded_on)} (${e.project_name} · ${e.task_name}${e.notes ? `: ${shortNotes(e.notes)}` : ''})`,
});

interface Decision {
  decision: 'approve' | 'reject';
  /** The chosen entries as the page listed them when the button was pressed. */
  entries: Pending[];
}

/** What a refused decision says: the entries in words when the list was out of date, else the server's message. */
function decisionFailure(err: unknown, { decision, entries }: Decision): { message: string; stale: boolean } {
  const failure = apiError(err);
  const stale = staleDecisionMessage(failure, decision, entries.map(described));
  return { message: stale ?? failure.message, stale: stale !== null };
}

/** Approving or rejecting the chosen entries; `clearChoice` once they are decided, or the list was out of date. */
function useDecide(clearChoice: () => void) {
  const me = useMe();
  const notify = useNotice();
  return useMutation({
    mutationFn: async ({ decision, entries }: Decision) => {
      const input = { email: me.member.email, time_entry_ids: entries.map((e) => e.id) };
      return decision === 'approve' ? api.timeEntries.approve.mutate(input) : api.timeEntries.reject.mutate(input);
    },
    onSuccess: (result, { decision }) => {
      notify(`${result.time_entries.length} ${result.time_entries.length === 1 ? 'entry' : 'entries'} ${decision === 'approve' ? 'approved' : 'rejected'}`);
      clearChoice();
    },
    onError: (err, variables) => {
      // The list was out of date (an entry deleted, or decided in another tab): reload it and start
      // the choice afresh, rather than sending the same refused request again and again.
      if (decisionFailure(err, variables).stale) clearChoice();
      void queryClient.invalidateQueries({ queryKey: ['approvals.pending'] });
    },
  });
}

export function ApprovalsPage() {
  const pending = useQuery({ queryKey: ['approvals.pending'], queryFn: () => api.approvals.pending.query() });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const decide = useDecide(() => setSelected(new Set()));
  if (!pending.data) return <Page title="Approvals"><Loading error={pending.error} what="the entries awaiting approval" /></Page>;
  const items = pending.data.items;
  // Only what is listed counts and is sent: an entry chosen before a refetch dropped it is not.
  const chosen = items.filter((e) => selected.has(e.id));
  const failed = decide.error && decide.variables ? decisionFailure(decide.error, decide.variables).message : null;
  const toggle = (ids: string[], on: boolean) => {
    const next = new Set(selected);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    setSelected(next);
  };
  const all = items.map((e) => e.id);
  return (
    <Page title="Approvals">
      {items.length === 0 ? (
        <>
          <FormError message={failed} />
          <p className="panel">Nothing is waiting for approval.</p>
        </>
      ) : (
        <>
          <div className="toolbar sticky" role="group" aria-label="Decide on the selected entries">
            <Check label={`Select all (${items.length})`} checked={chosen.length === items.length} onChange={(on) => toggle(all, on)} />
            <button type="button" className="button primary" disabled={chosen.length === 0 || decide.isPending} onClick={() => decide.mutate({ decision: 'approve', entries: chosen })}>
              Approve selected ({chosen.length})
            </button>
            <button type="button" className="button danger" disabled={chosen.length === 0 || decide.isPending} onClick={() => decide.mutate({ decision: 'reject', entries: chosen })}>
              Reject selected
            </button>
          </div>
          <FormError message={failed} />
          {groupsOf(items).map((g) => {
            const ids = g.entries.map((e) => e.id);
            const total = g.entries.reduce((s, e) => s + e.seconds, 0) / 3600;
            return (
              <section key={g.key} className="panel" aria-labelledby={`g-${g.key}`}>
                <div className="group-head">
                  <h2 id={`g-${g.key}`}>
                    {g.person} — week of {formatDate(g.weekStart)}
                  </h2>
                  <span className="muted">{formatHours(total)} h</span>
                  <Check label="Select this week" checked={ids.every((id) => selected.has(id))} onChange={(on) => toggle(ids, on)} />
                </div>
                <ul className="entries">
                  {g.entries.map((e) => (
                    <li key={e.id}>
                      <Check
                        label={
                          <>
                            <span className="entry-hours">{formatHours(e.hours)}</span> {formatLongDay(e.recorded_on)} · {e.client_name} · {e.project_name} · {e.task_name}
                            {e.notes && <span className="muted"> — {e.notes}</span>}
                          </>
                        }
                        checked={selected.has(e.id)}
                        onChange={(on) => toggle([e.id], on)}
                      />
                    </li>
                  ))}
                </ul>
              </section>
            );
          })}
        </>
      )}
    </Page>
  );
}
