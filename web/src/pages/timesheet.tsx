import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api, apiError } from '../api.ts';
import { addDays } from '../dates.ts';
import { formatClock, formatDate, formatDayMonth, formatHours, formatLongDay, formatWeekday } from '../format.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { Form, TextField, SubmitButton } from '../ui/form.tsx';
import { Field, FormError, formErrors } from '../ui/field.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { EntryDialog, firstTask, isLocked, ProjectTaskFields, type Entry, type EntryTarget, type Week } from './timesheet-entry.tsx';

/** Rejected time is not time worked: it counts toward no total. */
const counted = (e: Entry) => e.status !== 'rejected';
const sumHours = (entries: Entry[]) => entries.filter(counted).reduce((s, e) => s + e.seconds, 0) / 3600;

/** The timer's state, its clock (ticking while it runs) and its three server calls (start, stop, discard). */
function useTimer(week: Week) {
  const me = useMe();
  const notify = useNotice();
  const timer = week.timer;
  const openProjects = week.projects.filter((p) => p.open);
  const [projectId, setProjectId] = useState(openProjects[0]?.id ?? '');
  const project = week.projects.find((p) => p.id === projectId);
  const [taskId, setTaskId] = useState(() => firstTask(project));
  const [notes, setNotes] = useState('');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!timer) return;
    const tick = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(tick);
  }, [timer]);
  const start = useMutation({
    mutationFn: () => api.timesheet.startTimer.mutate({ email: me.member.email, client_id: project?.client_id ?? '', project_id: projectId, task_id: taskId, notes }),
    onSuccess: () => {
      // The notes are the running timer's now; the next timer starts with none (project and task stay as chosen).
      setNotes('');
      notify('Timer started');
    },
  });
  const stop = useMutation({ mutationFn: () => api.timesheet.stopTimer.mutate({ email: me.member.email }), onSuccess: () => notify('Timer stopped; time recorded') });
  const discard = useMutation({ mutationFn: () => api.timesheet.discardTimer.mutate({ email: me.member.email }), onSuccess: () => notify('Timer discarded') });
  const failed = start.error ?? stop.error ?? discard.error;
  return {
    me,
    timer,
    openProjects,
    now,
    state: { projectId, setProjectId, taskId, setTaskId, notes, setNotes },
    start,
    stop,
    discard,
    errors: formErrors(failed ? apiError(failed) : null, ['project_id', 'task_id', 'notes'], { not_a_project_user: 'project_id', project_archived: 'project_id', task_archived: 'task_id' }),
  };
}

/** The running timer: the time so far and on what; stop (and record) or discard. */
function RunningTimer({ week, timer, now, error, stopping, discarding, onStop, onDiscard }: { week: Week; timer: NonNullable<Week['timer']>; now: number; error: string | null; stopping: boolean; discarding: boolean; onStop: () => void; onDiscard: () => void }) {
  const running = week.projects.find((p) => p.id === timer.project_id);
  const runningTask = running?.tasks.find((t) => t.id === timer.task_id);
  return (
    <section className="panel timer running" aria-labelledby="timer-title">
      <h2 id="timer-title">Timer running</h2>
      <p>
        <strong className="clock" aria-label="Elapsed time">
          {formatClock((now - Date.parse(timer.started_at)) / 1000)}
        </strong>{' '}
        on {running?.client_name} · {running?.name} · {runningTask?.name}
        {timer.notes ? ` — ${timer.notes}` : ''}
      </p>
      <FormError message={error} />
      <div className="row">
        <button className="button primary" type="button" onClick={onStop} disabled={stopping}>
          Stop and record
        </button>
        <button className="button" type="button" onClick={onDiscard} disabled={discarding}>
          Discard
        </button>
      </div>
    </section>
  );
}

/** One's own timer: the running one, or a form to start one on an open project. */
function Timer({ week }: { week: Week }) {
  const { me, timer, openProjects, now, state: f, start, stop, discard, errors } = useTimer(week);
  if (week.person.id !== me.member.id) return null;
  if (timer) {
    return <RunningTimer week={week} timer={timer} now={now} error={errors.form} stopping={stop.isPending} discarding={discard.isPending} onStop={() => stop.mutate()} onDiscard={() => discard.mutate()} />;
  }
  if (openProjects.length === 0) return null;
  return (
    <details className="panel timer">
      <summary>Start a timer</summary>
      <Form
        className="grid-form"
        onSubmit={() => start.mutate()}
      >
        <FormError message={errors.form} />
        <ProjectTaskFields
          projects={openProjects}
          projectId={f.projectId}
          taskId={f.taskId}
          errors={errors}
          onChange={(next) => {
            f.setProjectId(next.projectId);
            f.setTaskId(next.taskId);
          }}
        />
        <TextField label="Notes" error={errors.field('notes')} value={f.notes} onChange={f.setNotes} />
        <SubmitButton pending={start.isPending}>
          Start
        </SubmitButton>
      </Form>
    </details>
  );
}

/** A task no longer taking time: its row in the grid offers no "+" (the dialog would refuse it). */
const archivedTask = (project: Week['projects'][number] | undefined, taskId: string) => project?.tasks.find((t) => t.id === taskId)?.archived ?? false;

/** A closed padlock drawn in SVG (an emoji needs a font that may be missing), with the word for screen readers. */
function LockMark() {
  return (
    <span className="lock" title="Locked">
      <svg className="lock-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
        <path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <rect x="3" y="7" width="10" height="7.5" rx="1.5" fill="currentColor" />
      </svg>
      <span className="visually-hidden"> locked</span>
    </span>
  );
}

/** Rejected time in a cell: its hours struck through and the word, so it reads as not counted rather than 0:00. */
function RejectedHours({ entries }: { entries: Entry[] }) {
  const hours = formatHours(entries.reduce((s, e) => s + e.seconds, 0) / 3600);
  return (
    <span className="cell-rejected" title={`${hours} h rejected: not counted`}>
      <s>{hours}</s> <span className="cell-rejected-label">Rejected</span>
    </span>
  );
}

interface Row {
  key: string;
  projectId: string;
  taskId: string;
  label: string;
}

/** The week at a glance: a row per project and task, a column per day, totals (wide screens). */
function WeekGrid({ week, onAdd }: { week: Week; onAdd: (t: EntryTarget) => void }) {
  const rows = new Map<string, Row>();
  for (const e of week.entries) {
    const project = week.projects.find((p) => p.id === e.project_id);
    const task = project?.tasks.find((t) => t.id === e.task_id);
    rows.set(`${e.project_id}|${e.task_id}`, { key: `${e.project_id}|${e.task_id}`, projectId: e.project_id, taskId: e.task_id, label: `${project?.name ?? 'Project'} · ${task?.name ?? 'Task'}` });
  }
  const cell = (row: Row, day: string) => week.entries.filter((e) => e.project_id === row.projectId && e.task_id === row.taskId && e.recorded_on === day);
  return (
    <table className="week-grid">
      <caption className="visually-hidden">Hours by project and task for the week of {formatDate(week.week_start)}</caption>
      <thead>
        <tr>
          <th scope="col">Project · task</th>
          {week.days.map((d) => (
            <th scope="col" key={d} className={`num${d === week.today ? ' today' : ''}`}>
              <abbr title={formatLongDay(d)}>{formatWeekday(d)}</abbr> {formatDayMonth(d)}
            </th>
          ))}
          <th scope="col" className="num">
            Total
          </th>
        </tr>
      </thead>
      <tbody>
        {[...rows.values()].map((row) => {
          const project = week.projects.find((p) => p.id === row.projectId);
          return (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              {week.days.map((d) => {
                const entries = cell(row, d);
                const locked = isLocked(project, d);
                const worked = entries.filter(counted);
                const rejected = entries.filter((e) => !counted(e));
                return (
                  <td key={d} className={`num${locked ? ' locked' : ''}`}>
                    {worked.length > 0 && formatHours(sumHours(worked))}
                    {rejected.length > 0 && <RejectedHours entries={rejected} />}
                    {entries.length === 0 && project?.open && !locked && !archivedTask(project, row.taskId) && (
                      <button type="button" className="cell-add" aria-label={`Add time for ${row.label} on ${formatLongDay(d)}`} onClick={() => onAdd({ kind: 'new', date: d, projectId: row.projectId, taskId: row.taskId })}>
                        +
                      </button>
                    )}
                    {locked && <LockMark />}
                  </td>
                );
              })}
              <td className="num">{formatHours(sumHours(week.entries.filter((e) => e.project_id === row.projectId && e.task_id === row.taskId)))}</td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          {week.days.map((d) => (
            <td key={d} className="num">
              {formatHours(sumHours(week.entries.filter((e) => e.recorded_on === d)))}
            </td>
          ))}
          <td className="num total">{formatHours(sumHours(week.entries))}</td>
        </tr>
      </tfoot>
    </table>
  );
}

/** Day by day, every entry with what can be done to it (all screen sizes; the only view on a phone). */
function DayList({ week, onOpen }: { week: Week; onOpen: (t: EntryTarget) => void }) {
  const canAdd = week.projects.some((p) => p.open);
  return (
    <div className="days">
      {week.days.map((d) => {
        const entries = week.entries.filter((e) => e.recorded_on === d);
        const lockedEverywhere = week.projects.length > 0 && week.projects.filter((p) => p.open).every((p) => isLocked(p, d));
        return (
          <section key={d} className={`day${d === week.today ? ' today' : ''}`} aria-labelledby={`day-${d}`}>
            <div className="day-head">
              <h2 id={`day-${d}`} tabIndex={-1}>
                {formatLongDay(d)}
                {d === week.today && <span className="visually-hidden"> (today)</span>}
              </h2>
              <span className="day-total">{formatHours(sumHours(entries))} h</span>
              {lockedEverywhere && <Badge status="locked" />}
              {canAdd && (
                <button type="button" className="button small" onClick={() => onOpen({ kind: 'new', date: d })} aria-label={`Add time on ${formatLongDay(d)}`}>
                  Add
                </button>
              )}
            </div>
            {entries.length > 0 && (
              <ul className="entries">
                {entries.map((e) => {
                  const project = week.projects.find((p) => p.id === e.project_id);
                  const task = project?.tasks.find((t) => t.id === e.task_id);
                  const locked = isLocked(project, e.recorded_on);
                  return (
                    <li key={e.id} className={e.status === 'rejected' ? 'rejected' : undefined}>
                      <div className="entry-main">
                        <span className="entry-hours">{formatHours(e.hours)}</span>
                        <span>
                          {project?.client_name} · {project?.name} · {task?.name}
                          {e.notes && <span className="muted"> — {e.notes}</span>}
                          {e.checklist_items.length > 0 && (
                            <span className="muted">
                              {' '}
                              ({e.checklist_items.filter((c) => c.is_completed).length}/{e.checklist_items.length} done)
                            </span>
                          )}
                        </span>
                      </div>
                      <div className="entry-side">
                        <Badge status={e.status} />
                        {locked && <Badge status="locked" />}
                        {e.status !== 'billed' && (!locked || project?.may_override) && (
                          <button type="button" className="button small" onClick={() => onOpen({ kind: 'edit', entry: e })} aria-label={`Edit ${formatHours(e.hours)} on ${task?.name ?? 'task'}, ${formatLongDay(d)}`}>
                            Edit
                          </button>
                        )}
                      </div>
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
        );
      })}
    </div>
  );
}

export function TimesheetPage() {
  const me = useMe();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const weekOf = search.get('week') ?? undefined;
  const userId = search.get('user') ?? undefined;
  const [target, setTarget] = useState<EntryTarget | null>(null);
  const input = { ...(weekOf ? { week_of: weekOf } : {}), ...(userId ? { user_id: userId } : {}) };
  const week = useQuery({ queryKey: ['timesheet.week', input], queryFn: () => api.timesheet.week.query(input) });
  const go = (next: { week?: string; user?: string }) => {
    const params = new URLSearchParams({ ...(weekOf ? { week: weekOf } : {}), ...(userId ? { user: userId } : {}), ...next });
    if (params.get('user') === me.member.id) params.delete('user');
    navigate(`/timesheet${params.size ? `?${params}` : ''}`);
  };
  if (!week.data) return <Page title="Timesheet"><Loading error={week.error} what="the timesheet" /></Page>;
  const w = week.data;
  const own = w.person.id === me.member.id;
  return (
    <Page title={own ? 'Timesheet' : `Timesheet of ${w.person.first_name} ${w.person.last_name}`}>
      <div className="toolbar">
        <div className="week-nav" role="group" aria-label="Week">
          <button type="button" className="button" onClick={() => go({ week: addDays(w.week_start, -7) })}>
            <span aria-hidden="true">←</span> Previous<span className="visually-hidden"> week</span>
          </button>
          <button type="button" className="button" onClick={() => go({ week: w.today })} disabled={w.days.includes(w.today)}>
            This week
          </button>
          <button type="button" className="button" onClick={() => go({ week: addDays(w.week_start, 7) })}>
            Next<span className="visually-hidden"> week</span> <span aria-hidden="true">→</span>
          </button>
          <p className="week-label" aria-live="polite">
            {formatDate(w.days[0]!)} – {formatDate(w.days[6]!)} · <strong>{formatHours(sumHours(w.entries))} h</strong>
          </p>
        </div>
        {w.people.length > 1 && (
          <Field label="Person" className="inline">
            {(p) => (
              <select {...p} value={w.person.id} onChange={(e) => go({ user: e.target.value })}>
                {w.people.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.first_name} {x.last_name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
      <Timer week={w} />
      {w.projects.filter((p) => p.open).length === 0 && <p className="panel">{own ? 'You are' : `${w.person.first_name} is`} not on any active project yet; a project manager or an Admin can add {own ? 'you' : 'them'} to one.</p>}
      {w.entries.length > 0 && (
        <div className="wide-only">
          <WeekGrid week={w} onAdd={setTarget} />
        </div>
      )}
      <DayList week={w} onOpen={setTarget} />
      {target && <EntryDialog week={w} target={target} onClose={() => setTarget(null)} />}
    </Page>
  );
}
