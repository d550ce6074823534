import { and, count, eq, inArray } from 'drizzle-orm';
import { clients, projects, teamMembers } from '../db/schema/index.ts';
import { createProject } from '../domain/projects/create.ts';
import { createProjectFields } from '../domain/projects/schemas.ts';
import { atTime, type ActorScope } from '../domain/scope.ts';
import { DEMO_CLIENTS, DEMO_MEMBERS } from './team-and-clients.ts';

const [ACME, GLOBEX, UMBRELLA] = DEMO_CLIENTS.map((c) => c.name);
const [ADA, GRACE, LINUS, YUKIHIRO] = DEMO_MEMBERS.map((m) => m.email);

/**
 * One project per billing style for the demo clients, created through the same domain function
 * as endpoint 11 with the workspace Owner acting, so identifiers, defaults and project managers
 * come out exactly as the API would make them. Runs only while the workspace has no projects.
 */
export function seedProjects(owner: ActorScope): void {
  const { db } = owner;
  if ((db.select({ n: count() }).from(projects).get()?.n ?? 0) > 0) return;
  const clientIds = new Map(
    db
      .select({ id: clients.id, name: clients.name })
      .from(clients)
      .where(inArray(clients.name, DEMO_CLIENTS.map((c) => c.name)))
      .all()
      .map((c) => [c.name, c.id]),
  );
  const memberIds = new Map(
    db
      .select({ id: teamMembers.id, email: teamMembers.email })
      .from(teamMembers)
      .where(and(inArray(teamMembers.email, DEMO_MEMBERS.map((m) => m.email)), eq(teamMembers.active, true)))
      .all()
      .map((m) => [m.email, m.id]),
  );
  const user = (email: string | undefined, role: 'project_manager' | 'regular_user', hourly_rate?: number, approval_type = 'manual_approval') => {
    const id = email ? memberIds.get(email) : undefined;
    return id ? [{ user_id: id, role, hourly_rate, approval_type }] : [];
  };

  const plans = [
    {
      name: 'Website relaunch',
      client_id: ACME && clientIds.get(ACME),
      billing_method: 'hourly_project_rate',
      hourly_rate: 150,
      internal_notes: 'Fixed scope for phase 1; change requests billed hourly.',
      time_round_upto: 15,
      reply_to: 'projects@demo.localhost',
      tasks_attributes: [
        { name: 'Design', checklists_attributes: [{ description: 'Wireframes' }, { description: 'Visual design' }] },
        { name: 'Development', checklists_attributes: [{ description: 'Code review' }, { description: 'Deployed to staging' }] },
        { name: 'Internal meetings', billable: false },
      ],
      project_users_attributes: [...user(ADA, 'project_manager'), ...user(GRACE, 'regular_user', 120), ...user(LINUS, 'regular_user', 130)],
    },
    {
      name: 'Support retainer',
      client_id: GLOBEX && clientIds.get(GLOBEX),
      billing_method: 'hourly_person_rate',
      time_round_upto: 6,
      enable_approvals: true,
      notify_timesheet_approval_request_weekly: true,
      timesheet_approval_email_notification_day: 'friday',
      timesheet_approval_email_notification_time: '16:00',
      tasks_attributes: [{ name: 'Support tickets' }, { name: 'Maintenance', checklists_attributes: [{ description: 'Dependencies updated' }] }],
      project_users_attributes: [...user(LINUS, 'project_manager', 95), ...user(YUKIHIRO, 'regular_user', 110, 'auto_approval')],
    },
    {
      name: 'Mobile app MVP',
      client_id: UMBRELLA && clientIds.get(UMBRELLA),
      billing_method: 'fixed_price_project',
      flat_amount: 2_500_000,
      autolock_enabled: true,
      autolock_settings: { end_of_the_month: true },
      tasks_attributes: [{ name: 'Build' }, { name: 'QA' }],
      project_users_attributes: [...user(YUKIHIRO, 'project_manager'), ...user(GRACE, 'regular_user')],
    },
  ];

  plans.forEach((plan, i) => {
    if (!plan.client_id) return;
    createProject(atTime(owner, new Date(owner.now.getTime() + i)), { project: createProjectFields.parse(plan) });
  });
}
