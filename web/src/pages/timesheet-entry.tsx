import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { formatHours, formatLongDay } from '../format.ts';
import { useMe } from '../session.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Check, Field, FormError, formErrors, type FormErrors } from '../ui/field.tsx';
import { SelectField, TextField, SubmitButton } from '../ui/form.tsx';
import { focusWhenShown } from '../ui/hooks.ts';
import { useNotice } from '../ui/notice.tsx';

export type Week = Outputs['timesheet']['week'];
export type Entry = Week['entries'][number];
export type Project = Week['projects'][number];

export type EntryTarget = { kind: 'new'; date: string; projectId?: string; taskId?: string } | { kind: 'edit'; entry: Entry };

const FIELDS = ['recorded_on', 'project_id', 'task_id', 'hours', 'notes', 'checklist_items'] as const;
/** Business errors that name no field, placed by what they are about. */
const CODES: Record<string, string> = {
  time_entry_locked: 'recorded_on',
  override_not_permitted: 'recorded_on',
  daily_limit_exceeded: 'hours',
  not_a_project_user: 'project_id',
  project_archived: 'project_id',
  client_archived: 'project_id',
  project_not_found: 'project_id',
  task_archived: 'task_id',
  task_not_in_project: 'task_id',
  task_not_found: 'task_id',
  checklist_item_not_in_task: 'checklist_items',
};

/** The project's first task that is not archived (what a new entry or the timer starts on). */
export const firstTask = (project: Project | undefined) => project?.tasks.find((t) => !t.archived)?.id ?? '';

/** Project and task selects; another project selects its first open task. */
export function ProjectTaskFields({
  projects,
  projectId,
  taskId,
  lockProject = false,
  errors,
  onChange,
}: {
  projects: Project[];
  projectId: string;
  taskId: string;
  lockProject?: boolean;
  errors: FormErrors;
  onChange: (next: { projectId: string; taskId: string }) => void;
}) {
  const project = projects.find((p) => p.id === projectId);
  return (
    <>
      <SelectField
        label="Project"
        value={projectId}
        disabled={lockProject}
        options={projects.map((p) => [p.id, `${p.client_name} · ${p.name}`] as const)}
        onChange={(id) => onChange({ projectId: id, taskId: firstTask(projects.find((p) => p.id === id)) })}
        error={errors.field('project_id')}
      />
      <SelectField
        label="Task"
        value={taskId}
        options={(project?.tasks ?? []).filter((t) => !t.archived || t.id === taskId).map((t) => [t.id, t.billable ? t.name : `${t.name} (non-billable)`] as const)}
        onChange={(id) => onChange({ projectId, taskId: id })}
        error={errors.field('task_id')}
      />
    </>
  );
}

export const isLocked = (project: Project | undefined, date: string) => project?.locked_days.includes(date) ?? false;

/** The dialog's state and its two server calls (save, delete). */
function useEntryForm(week: Week, target: EntryTarget, onClose: () => void) {
  const me = useMe();
  const notify = useNotice();
  const editing = target.kind === 'edit' ? target.entry : null;
  const open = week.projects.filter((p) => p.open || p.id === editing?.project_id);
  const [date, setDate] = useState(editing?.recorded_on ?? (target.kind === 'new' ? target.date : week.today));
  const [projectId, setProjectId] = useState(editing?.project_id ?? (target.kind === 'new' ? target.projectId : undefined) ?? open[0]?.id ?? '');
  const project = week.projects.find((p) => p.id === projectId);
  const [taskId, setTaskId] = useState(editing?.task_id ?? (target.kind === 'new' ? target.taskId : undefined) ?? firstTask(project));
  const [hours, setHours] = useState(editing ? formatHours(editing.hours) : '');
  const [notes, setNotes] = useState(editing?.notes ?? '');
  const [done, setDone] = useState<Set<string>>(new Set(editing?.checklist_items.filter((c) => c.is_completed).map((c) => c.id)));
  const [override, setOverride] = useState(false);
  const task = project?.tasks.find((t) => t.id === taskId);

  const checklist = () => (task?.checklist_items ?? []).map((c) => ({ id: c.id, is_completed: done.has(c.id) }));
  const fields = { task_id: taskId, recorded_on: date, hours, notes, checklist_items: checklist(), is_override: override };
  const finish = (message: string) => () => {
    notify(message);
    onClose();
  };
  const save = useMutation({
    mutationFn: (): Promise<unknown> =>
      editing
        ? api.timeEntries.update.mutate({ email: me.member.email, time_entry_id: editing.id, ...fields })
        : api.timeEntries.create.mutate({ email: week.person.email, client_id: project?.client_id ?? '', project_id: projectId, ...fields }),
    onSuccess: finish(editing ? 'Time entry saved' : 'Time entry added'),
  });
  const remove = useMutation({
    mutationFn: () => api.timeEntries.delete.mutate({ email: me.member.email, time_entry_id: editing!.id, is_override: override }),
    onSuccess: () => {
      finish('Time entry deleted')();
      // The entry's Edit button, which opened the dialog, is gone with it: its day takes the focus.
      if (editing) focusWhenShown(`day-${editing.recorded_on}`);
    },
  });
  const failed = save.error ?? remove.error;
  return {
    me,
    editing,
    open,
    project,
    task,
    state: { date, setDate, projectId, setProjectId, taskId, setTaskId, hours, setHours, notes, setNotes, done, setDone, override, setOverride },
    locked: isLocked(project, date) || (editing ? isLocked(project, editing.recorded_on) : false),
    save,
    remove,
    errors: formErrors(failed ? apiError(failed) : null, FIELDS, CODES),
  };
}

/** The task's checklist, each item ticked or not. */
function ChecklistFields({ task, done, onChange, error }: { task: Project['tasks'][number]; done: Set<string>; onChange: (next: Set<string>) => void; error: string | undefined }) {
  return (
    <fieldset className="checklist">
      <legend>Checklist</legend>
      {task.checklist_items.map((c) => (
        <Check
          key={c.id}
          label={c.description}
          checked={done.has(c.id)}
          onChange={(on) => {
            const next = new Set(done);
            if (on) next.add(c.id);
            else next.delete(c.id);
            onChange(next);
          }}
        />
      ))}
      {error && <p className="error">{error}</p>}
    </fieldset>
  );
}

/** Save (or add), delete when editing, cancel. */
function EntryButtons({ editing, saving, deleting, onDelete, onClose }: { editing: boolean; saving: boolean; deleting: boolean; onDelete: () => void; onClose: () => void }) {
  return (
    <div className="row">
      <SubmitButton pending={saving}>
        {editing ? 'Save' : 'Add time'}
      </SubmitButton>
      {editing && (
        <button
          className="button danger"
          type="button"
          disabled={deleting}
          onClick={() => {
            if (window.confirm('Delete this time entry?')) onDelete();
          }}
        >
          Delete
        </button>
      )}
      <button className="button" type="button" onClick={onClose}>
        Cancel
      </button>
    </div>
  );
}

/** Add or change one entry; every rule is the server's, and its answer is shown beside the field. */
export function EntryDialog({ week, target, onClose }: { week: Week; target: EntryTarget; onClose: () => void }) {
  const { me, editing, open, project, task, state: f, locked, save, remove, errors } = useEntryForm(week, target, onClose);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Dialog title={editing ? 'Edit time' : `Add time${week.person.id === me.member.id ? '' : ` for ${week.person.first_name}`}`} onClose={onClose}>
      {editing?.status === 'billed' ? (
        <p>This entry is on an invoice; void the invoice to change it.</p>
      ) : (
        <form className="stack" onSubmit={submit} noValidate>
          <FormError message={errors.form} />
          <TextField label="Date" error={errors.field('recorded_on')} hint={locked ? `${project?.name ?? 'This project'} is locked on ${formatLongDay(f.date)}.` : undefined} type="date" required value={f.date} onChange={f.setDate} />
          <ProjectTaskFields
            projects={open}
            projectId={f.projectId}
            taskId={f.taskId}
            lockProject={editing !== null}
            errors={errors}
            onChange={(next) => {
              f.setProjectId(next.projectId);
              f.setTaskId(next.taskId);
              f.setDone(new Set());
            }}
          />
          <TextField label="Hours" hint="As 1.5 or 1:30" error={errors.field('hours')} inputMode="decimal" autoComplete="off" required value={f.hours} onChange={f.setHours} />
          <Field label="Notes" error={errors.field('notes')}>
            {(p) => <textarea {...p} rows={3} value={f.notes} onChange={(e) => f.setNotes(e.target.value)} />}
          </Field>
          {task && task.checklist_items.length > 0 && <ChecklistFields task={task} done={f.done} onChange={f.setDone} error={errors.field('checklist_items')} />}
          {locked && project?.may_override && <Check label="Override the lock (recorded in the override log)" checked={f.override} onChange={f.setOverride} />}
          <EntryButtons editing={editing !== null} saving={save.isPending} deleting={remove.isPending} onDelete={() => remove.mutate()} onClose={onClose} />
        </form>
      )}
    </Dialog>
  );
}
