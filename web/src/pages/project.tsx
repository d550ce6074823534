import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { api, apiError, type Outputs } from '../api.ts';
import { amountInputText } from '../format.ts';
import { useMe } from '../session.tsx';
import { AmountField, useAmountInput } from '../ui/amount-field.tsx';
import { Badge } from '../ui/badge.tsx';
import { Check, Field, FormError, formErrors } from '../ui/field.tsx';
import { Actions, Form, SelectField, SubmitButton } from '../ui/form.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';
import { PROJECT_AMOUNT_FIELDS, projectAmounts, ProjectBasicsFields, projectPrice, type ProjectBasics } from './client.tsx';

type Project = Outputs['projects']['get']['project'];
/** A project as a save answers it (without its people). */
type Saved = Outputs['projects']['update']['project'];
type Task = Project['tasks'][number];
type ProjectUser = Project['project_users'][number];

const PROJECT_ROLES = [
  ['regular_user', 'Member'],
  ['project_manager', 'Project manager'],
] as const;
const APPROVAL_TYPES = [
  ['manual_approval', 'Manager approves'],
  ['auto_approval', 'Approved automatically'],
] as const;

const ROUNDING = [0, 6, 15, 30] as const;

/** The settings form's switches as a saved project has them. */
const switchesOf = (project: Project | Saved) => ({
  rounding: project.time_round_upto,
  approvals: project.enable_approvals,
  notify: project.notify_timesheet_approval_request_instantly,
  autolock: project.autolock_enabled,
  day: project.autolock_settings.end_of_the_day === 'true',
  week: project.autolock_settings.end_of_the_week === 'true',
  month: project.autolock_settings.end_of_the_month === 'true',
});
const rateText = (project: Project | Saved) => amountInputText(project.hourly_rate, project.currency);
const flatText = (project: Project | Saved) => (project.flat_amount === null ? '' : amountInputText(Number(project.flat_amount), project.currency));

/**
 * The project's settings. The form is made once per project (not again when anything else on the
 * page is saved, which would throw away what is typed here); after its own save it shows the
 * project as saved.
 */
function Settings({ project }: { project: Project }) {
  const me = useMe();
  const notify = useNotice();
  const [basics, setBasics] = useState<ProjectBasics>({ name: project.name, billing: project.billing_method });
  const rate = useAmountInput(rateText(project), project.currency);
  const flat = useAmountInput(flatText(project), project.currency);
  const amounts = projectAmounts(basics.billing, rate, flat);
  const [f, setF] = useState(() => switchesOf(project));
  const save = useMutation({
    mutationFn: () =>
      api.projects.update.mutate({
        email: me.member.email,
        project_id: project.id,
        project: {
          name: basics.name,
          billing_method: basics.billing,
          ...amounts.fields,
          time_round_upto: f.rounding as (typeof ROUNDING)[number],
          enable_approvals: f.approvals,
          notify_timesheet_approval_request_instantly: f.notify,
          autolock_enabled: f.autolock,
          autolock_settings: { end_of_the_day: f.day, end_of_the_week: f.week, end_of_the_month: f.month },
        },
      }),
    onSuccess: ({ project: saved }) => {
      setBasics({ name: saved.name, billing: saved.billing_method });
      rate.setText(rateText(saved));
      flat.setText(flatText(saved));
      setF(switchesOf(saved));
      notify('Project saved');
    },
  });
  const errors = formErrors(save.error ? apiError(save.error) : null, ['project.name', 'project.billing_method', ...PROJECT_AMOUNT_FIELDS, 'project.time_round_upto', 'project.autolock_settings']);
  return (
    <Form
      className="panel grid-form"
      aria-labelledby="settings"
      onSubmit={() => amounts.whenValid(() => save.mutate())}
    >
      <h2 id="settings" className="span">
        Settings
      </h2>
      <FormError message={errors.form} />
      <ProjectBasicsFields value={basics} onChange={setBasics} rate={rate} flat={flat} currency={project.currency} errors={errors} />
      <SelectField
        label="Round each entry up to"
        value={String(f.rounding)}
        options={ROUNDING.map((m) => [String(m), m === 0 ? 'No rounding' : `${m} minutes`] as const)}
        onChange={(v) => setF({ ...f, rounding: Number(v) })}
        error={errors.field('project.time_round_upto')}
      />
      <fieldset className="span">
        <legend>Approvals</legend>
        <Check label="Entries need a project manager’s approval" checked={f.approvals} onChange={(v) => setF({ ...f, approvals: v })} />
        <Check label="E-mail the managers as each entry arrives" checked={f.notify} onChange={(v) => setF({ ...f, notify: v })} />
      </fieldset>
      <fieldset className="span">
        <legend>Lock past time</legend>
        <Check label="Lock time automatically" checked={f.autolock} onChange={(v) => setF({ ...f, autolock: v })} />
        <Check label="Two days after the day" checked={f.day} disabled={!f.autolock} onChange={(v) => setF({ ...f, day: v })} />
        <Check label="When the week has ended" checked={f.week} disabled={!f.autolock} onChange={(v) => setF({ ...f, week: v })} />
        <Check label="When the month has ended" checked={f.month} disabled={!f.autolock} onChange={(v) => setF({ ...f, month: v })} />
        {errors.field('project.autolock_settings') && <p className="error">{errors.field('project.autolock_settings')}</p>}
      </fieldset>
      <Actions className="span" submit="Save settings" pending={save.isPending} />
    </Form>
  );
}

type ChecklistItem = { id: string | undefined; description: string };
const itemsOf = (task: Task | null): ChecklistItem[] => task?.checklist_items.map((c) => ({ id: c.id as string | undefined, description: c.description })) ?? [];

/**
 * A task form's state and its one server call (save, or archive and reactivate with `archived`).
 * Only the form that saved shows the task as saved (its new checklist items with their ids); the
 * other forms on the page keep what is typed in them.
 */
function useTaskForm(project: Project, task: Task | null) {
  const me = useMe();
  const notify = useNotice();
  const [name, setName] = useState(task?.name ?? '');
  const [billable, setBillable] = useState(task?.billable ?? true);
  const rate = useAmountInput(task ? amountInputText(task.hourly_rate, project.currency) : '', project.currency, { positive: true, optional: true });
  const [items, setItems] = useState<ChecklistItem[]>(() => itemsOf(task));
  const [newItem, setNewItem] = useState('');
  const save = useMutation({
    mutationFn: (archived?: boolean) =>
      api.projects.update.mutate({
        email: me.member.email,
        project_id: project.id,
        project: {
          tasks_attributes: [
            {
              ...(task ? { id: task.id } : {}),
              name,
              billable,
              ...(rate.value !== null && { hourly_rate: rate.value }),
              ...(archived === undefined ? {} : { archived }),
              checklists_attributes: [...items, ...(newItem.trim() ? [{ id: undefined, description: newItem }] : [])].map((c) => (c.id ? { id: c.id, description: c.description } : { description: c.description })),
            },
          ],
        },
      }),
    onSuccess: ({ project: saved }) => {
      notify(task ? `Task ${name} saved` : `Task ${name} added`);
      setNewItem('');
      const now = task && saved.tasks.find((t) => t.id === task.id);
      if (now) {
        setName(now.name);
        setBillable(now.billable);
        rate.setText(amountInputText(now.hourly_rate, project.currency));
        setItems(itemsOf(now));
      } else if (!task) {
        setName('');
        rate.setText('');
        setItems([]);
      }
    },
  });
  return {
    state: { name, setName, billable, setBillable, items, setItems, newItem, setNewItem },
    rate,
    save,
    errors: formErrors(save.error ? apiError(save.error) : null, ['project.tasks_attributes']),
  };
}

/** The task's checklist: its items, each editable, and a field for one more. */
function TaskChecklist({ label, items, newItem, onItems, onNewItem }: { label: string; items: ChecklistItem[]; newItem: string; onItems: (next: ChecklistItem[]) => void; onNewItem: (next: string) => void }) {
  return (
    <fieldset>
      <legend>Checklist of {label}</legend>
      <ul className="plain">
        {items.map((c, i) => (
          <li key={c.id ?? i}>
            <Field label={`Item ${i + 1}`}>
              {(p) => <input {...p} value={c.description} onChange={(e) => onItems(items.map((x, j) => (j === i ? { ...x, description: e.target.value } : x)))} />}
            </Field>
          </li>
        ))}
      </ul>
      <Field label="Add a checklist item">{(p) => <input {...p} value={newItem} onChange={(e) => onNewItem(e.target.value)} />}</Field>
    </fieldset>
  );
}

/** One task (or a new one): name, rate, billable, checklist; save, archive or reactivate. */
function TaskEditor({ project, task }: { project: Project; task: Task | null }) {
  const { state: f, rate, save, errors } = useTaskForm(project, task);
  return (
    <li className={`task${task?.archived ? ' archived' : ''}`}>
      <Form
        className="stack"
        onSubmit={() => rate.whenValid(() => save.mutate(undefined))}
      >
        <div className="inline-form">
          <Field label={task ? 'Task' : 'New task'}>{(p) => <input {...p} value={f.name} onChange={(e) => f.setName(e.target.value)} />}</Field>
          {project.billing_method === 'hourly_task_rate' && (
            <AmountField label={`Rate (${project.currency})`} amount={rate} />
          )}
          <Check label="Billable" checked={f.billable} onChange={f.setBillable} />
          {task?.archived && <Badge status="archived" />}
        </div>
        <TaskChecklist label={task ? task.name : 'new task'} items={f.items} newItem={f.newItem} onItems={f.setItems} onNewItem={f.setNewItem} />
        <FormError message={errors.field('project.tasks_attributes') ?? errors.form} />
        <Actions submit={task ? 'Save task' : 'Add task'} pending={save.isPending}>
          {task && (
            <button className="button" type="button" onClick={() => save.mutate(!task.archived)} disabled={save.isPending}>
              {task.archived ? 'Reactivate' : 'Archive'}
              <span className="visually-hidden"> {task.name}</span>
            </button>
          )}
        </Actions>
      </Form>
    </li>
  );
}

function UserRow({ project, user }: { project: Project; user: ProjectUser }) {
  const me = useMe();
  const notify = useNotice();
  const [role, setRole] = useState(user.role);
  const rate = useAmountInput(amountInputText(user.hourly_rate, project.currency), project.currency);
  const [approval, setApproval] = useState(user.approval_type);
  const save = useMutation({
    mutationFn: () => api.projects.updateUser.mutate({ email: me.member.email, project_id: project.id, project_user_id: user.id, project_user: { role, hourly_rate: rate.value!, approval_type: approval } }),
    onSuccess: () => notify(`${user.name} saved`),
  });
  const remove = useMutation({ mutationFn: () => api.projects.removeUser.mutate({ project_id: project.id, project_user_id: user.id }), onSuccess: () => notify(`${user.name} removed from the project`) });
  const errors = formErrors(save.error ?? remove.error ? apiError(save.error ?? remove.error) : null, ['project_user.role', 'project_user.hourly_rate', 'project_user.approval_type']);
  return (
    <li>
      <Form
        className="inline-form"
        onSubmit={() => rate.whenValid(() => save.mutate())}
      >
        <p className="who">
          <strong>{user.name}</strong> <span className="muted">{user.email}</span> {!user.active && <Badge status="inactive" />}
        </p>
        <SelectField label="Role" value={role} options={PROJECT_ROLES} onChange={setRole} error={errors.field('project_user.role')} />
        <AmountField label={`Rate (${project.currency})`} error={errors.field('project_user.hourly_rate')} amount={rate} />
        <SelectField label="Approval" value={approval} options={APPROVAL_TYPES} onChange={setApproval} error={errors.field('project_user.approval_type')} />
        <SubmitButton className="button" pending={save.isPending}>
          Save<span className="visually-hidden"> {user.name}</span>
        </SubmitButton>
        <button className="button danger" type="button" disabled={remove.isPending} onClick={() => window.confirm(`Remove ${user.name} from ${project.name}?`) && remove.mutate()}>
          Remove<span className="visually-hidden"> {user.name}</span>
        </button>
        <FormError message={errors.form} />
      </Form>
    </li>
  );
}

function Users({ project }: { project: Project }) {
  const me = useMe();
  const notify = useNotice();
  const team = useQuery({ queryKey: ['teamMembers.list', { active: true }], queryFn: () => api.teamMembers.list.query({ active: true, limit: 200 }) });
  const candidates = (team.data?.items ?? []).filter((m) => !project.project_users.some((u) => u.user_id === m.id));
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<'regular_user' | 'project_manager'>('regular_user');
  const rate = useAmountInput('', project.currency, { positive: true, optional: true });
  const add = useMutation({
    mutationFn: () =>
      api.projects.addUser.mutate({
        email: me.member.email,
        project_id: project.id,
        project_user: { user_id: userId || (candidates[0]?.id ?? ''), role, ...(rate.value !== null && { hourly_rate: rate.value }) },
      }),
    onSuccess: () => {
      notify('Added to the project');
      setUserId('');
      rate.setText('');
    },
  });
  const errors = formErrors(add.error ? apiError(add.error) : null, ['project_user.user_id', 'project_user.hourly_rate']);
  return (
    <section className="panel" aria-labelledby="users">
      <h2 id="users">People on the project</h2>
      <ul className="plain rows">
        {project.project_users.map((u) => (
          <UserRow key={`${u.id}-${u.role}-${u.hourly_rate}-${u.approval_type}`} project={project} user={u} />
        ))}
      </ul>
      {candidates.length > 0 && (
        <>
          <h3>Add someone</h3>
          <Form
            className="inline-form"
            onSubmit={() => rate.whenValid(() => add.mutate())}
          >
            <Field label="Team member" error={errors.field('project_user.user_id')}>
              {(p) => (
                <select {...p} value={userId || candidates[0]?.id} onChange={(e) => setUserId(e.target.value)}>
                  {candidates.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.first_name} {m.last_name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <SelectField label="Role" value={role} options={PROJECT_ROLES} onChange={setRole} />
            <AmountField label={`Rate (${project.currency})`} hint="Empty: the project's rate" error={errors.field('project_user.hourly_rate')} amount={rate} />
            <SubmitButton pending={add.isPending}>
              Add to project
            </SubmitButton>
            <FormError message={errors.form} />
          </Form>
        </>
      )}
    </section>
  );
}

export function ProjectPage() {
  const me = useMe();
  const notify = useNotice();
  const { id = '' } = useParams<{ id: string }>();
  const project = useQuery({ queryKey: ['projects.get', id], queryFn: () => api.projects.get.query({ project_id: id }) });
  const status = useMutation({
    mutationFn: (next: 'active' | 'archived') => api.projects.updateStatus.mutate({ email: me.member.email, project_ids: [id], status: next }),
    onSuccess: (_r, next) => notify(next === 'archived' ? 'Project archived' : 'Project reactivated'),
  });
  if (!project.data) return <Page title="Project"><Loading error={project.error} what="the project" /></Page>;
  const p = project.data.project;
  return (
    <Page
      title={p.name}
      actions={
        <>
          <Badge status={p.status} />
          <button type="button" className="button" disabled={status.isPending} onClick={() => status.mutate(p.status === 'active' ? 'archived' : 'active')}>
            {p.status === 'active' ? 'Archive project' : 'Reactivate project'}
          </button>
        </>
      }
    >
      {me.is_admin && (
        <p>
          <Link href={`/clients/${p.client_id}`}>← The client</Link> · {projectPrice(p)}
        </p>
      )}
      <FormError message={status.error ? apiError(status.error).message : null} />
      <Settings key={p.id} project={p} />
      <section className="panel" aria-labelledby="tasks">
        <h2 id="tasks">Tasks and checklists</h2>
        <ul className="plain rows">
          {p.tasks.map((t) => (
            <TaskEditor key={t.id} project={p} task={t} />
          ))}
          <TaskEditor key={`new-${p.tasks.length}`} project={p} task={null} />
        </ul>
      </section>
      <Users project={p} />
    </Page>
  );
}
