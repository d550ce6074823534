import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, apiError, type Outputs } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { useMe } from '../session.tsx';
import { Badge } from '../ui/badge.tsx';
import { useWithPassword } from '../ui/confirm-password.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Actions, Form, TextField, SubmitButton } from '../ui/form.tsx';
import { Field, FormError, formErrors, type ControlProps } from '../ui/field.tsx';
import { useNotice } from '../ui/notice.tsx';
import { Loading, Page } from '../ui/page.tsx';

type Team = Outputs['accounts']['team'];
type Member = Team['members'][number];

const ZONES = Intl.supportedValuesOf('timeZone');

function ZoneSelect({ value, onChange, ...p }: ControlProps & { value: string; onChange: (v: string) => void }) {
  const zones = ZONES.includes(value) ? ZONES : [value, ...ZONES];
  return (
    <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
      {zones.map((z) => (
        <option key={z} value={z}>
          {z.replaceAll('_', ' ')}
        </option>
      ))}
    </select>
  );
}

function InviteDialog({ roles, onClose }: { roles: string[]; onClose: () => void }) {
  const me = useMe();
  const withPassword = useWithPassword();
  const notify = useNotice();
  const [f, setF] = useState({ email: '', first: '', last: '', role: 'Member', zone: me.workspace.time_zone });
  const invite = useMutation({
    mutationFn: () =>
      withPassword((current_password) => api.accounts.invite.mutate({ email: f.email, first_name: f.first, last_name: f.last, organization_role: f.role, time_zone: f.zone, current_password })),
    onSuccess: ({ team_member }) => {
      notify(`Invitation sent to ${team_member.email}`);
      onClose();
    },
  });
  const errors = formErrors(invite.error ? apiError(invite.error) : null, ['email', 'first_name', 'last_name', 'organization_role', 'time_zone'], { team_member_email_taken: 'email' });
  return (
    <Dialog title="Invite a team member" onClose={onClose}>
      <Form
        className="stack"
        onSubmit={() => invite.mutate()}
      >
        <p className="muted">They get an e-mail with a link to choose a password. The link works once, for 7 days.</p>
        <FormError message={errors.form} />
        <TextField label="E-mail" error={errors.field('email')} type="email" value={f.email} onChange={(v) => setF({ ...f, email: v })} />
        <TextField label="First name" error={errors.field('first_name')} value={f.first} onChange={(v) => setF({ ...f, first: v })} />
        <TextField label="Last name" error={errors.field('last_name')} value={f.last} onChange={(v) => setF({ ...f, last: v })} />
        <Field label="Role" error={errors.field('organization_role')}>
          {(p) => (
            <select {...p} value={f.role} onChange={(e) => setF({ ...f, role: e.target.value })}>
              {roles.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Time zone" error={errors.field('time_zone')}>
          {(p) => <ZoneSelect {...p} value={f.zone} onChange={(zone) => setF({ ...f, zone })} />}
        </Field>
        <Actions submit="Send invitation" pending={invite.isPending} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}

function MemberRow({ member, roles }: { member: Member; roles: string[] }) {
  const me = useMe();
  const withPassword = useWithPassword();
  const notify = useNotice();
  const [role, setRole] = useState(member.organization_role);
  const [zone, setZone] = useState(member.time_zone);
  const update = useMutation({
    mutationFn: (change: { organization_role?: string; time_zone?: string; active?: boolean }) =>
      withPassword((current_password) => api.teamMembers.update.mutate({ team_member_id: member.id, ...change, current_password })),
    onSuccess: (_r, change) => notify(change.active === false ? `${member.first_name} is deactivated and signed out` : change.active ? `${member.first_name} is active again` : `${member.first_name} saved`),
  });
  const link = useMutation({ mutationFn: () => api.accounts.sendLink.mutate({ team_member_id: member.id }), onSuccess: (r) => notify(r.purpose === 'invite' ? 'Invitation sent again' : 'Password reset link sent') });
  const errors = formErrors(update.error ?? link.error ? apiError(update.error ?? link.error) : null, ['organization_role', 'time_zone'], { last_owner: 'organization_role' });
  const name = `${member.first_name} ${member.last_name}`;
  const self = member.id === me.member.id;
  return (
    <li className={member.active ? undefined : 'inactive'}>
      <Form
        className="inline-form"
        onSubmit={() => update.mutate({ organization_role: role, time_zone: zone })}
      >
        <p className="who">
          <strong>{name}</strong>
          {self && ' (you)'} <span className="muted">{member.email}</span> <Badge status={member.active ? member.account : 'inactive'} />
          {member.last_seen_at && <span className="muted small"> · seen {formatDateTime(member.last_seen_at)}</span>}
        </p>
        <Field label="Role" error={errors.field('organization_role')}>
          {(p) => (
            <select {...p} value={role} onChange={(e) => setRole(e.target.value)}>
              {roles.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Time zone" error={errors.field('time_zone')}>
          {(p) => <ZoneSelect {...p} value={zone} onChange={setZone} />}
        </Field>
        <SubmitButton className="button" pending={update.isPending}>
          Save<span className="visually-hidden"> {name}</span>
        </SubmitButton>
        {member.active && !self && (
          <button type="button" className="button" disabled={link.isPending} onClick={() => link.mutate()}>
            {member.account === 'active' ? 'Send reset link' : 'Send invitation'}
            <span className="visually-hidden"> to {name}</span>
          </button>
        )}
        {!self && (
          <button
            type="button"
            className={`button${member.active ? ' danger' : ''}`}
            disabled={update.isPending}
            onClick={() => (member.active ? window.confirm(`Deactivate ${name}? They are signed out at once and can no longer sign in.`) && update.mutate({ active: false }) : update.mutate({ active: true }))}
          >
            {member.active ? 'Deactivate' : 'Reactivate'}
            <span className="visually-hidden"> {name}</span>
          </button>
        )}
        <FormError message={errors.form} />
      </Form>
    </li>
  );
}

export function TeamPage() {
  const team = useQuery({ queryKey: ['accounts.team'], queryFn: () => api.accounts.team.query() });
  const [inviting, setInviting] = useState(false);
  return (
    <Page
      title="Team"
      actions={
        <button type="button" className="button primary" onClick={() => setInviting(true)}>
          Invite someone
        </button>
      }
    >
      {team.data ? (
        <div className="panel">
          <ul className="plain rows">
            {team.data.members.map((m) => (
              <MemberRow key={`${m.id}-${m.organization_role}-${m.time_zone}-${m.active}`} member={m} roles={team.data.roles} />
            ))}
          </ul>
        </div>
      ) : (
        <Loading error={team.error} what="the team" />
      )}
      {inviting && team.data && <InviteDialog roles={team.data.roles} onClose={() => setInviting(false)} />}
    </Page>
  );
}
