import { and, eq } from 'drizzle-orm';
import * as z from 'zod';
import { projectUsers, timers } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';
import type { Scope } from '../scope.ts';
import { requireProjectManager } from './access.ts';
import { getProjectRow, projectStatements } from './queries.ts';
import { idIn } from '../fields.ts';

export const removeProjectUserInput = z.object({ project_id: idIn(), project_user_id: idIn() });
export const removeProjectUserOutput = z.object({ notice_code: z.literal('project_user_removed'), project_user_id: z.string(), user_id: z.string() });

/**
 * `projects.removeUser`: Owner, Admin or a project manager of the project takes a member off it.
 * The member records no more time on the project (a timer running on it stops without recording);
 * their recorded entries stay. Their rate goes with them: on an `hourly_person_rate` project their
 * unbilled entries have no default rate any more, and an invoice must give one (422 `rate_unknown`).
 */
export function removeProjectUser(scope: Scope, input: z.output<typeof removeProjectUserInput>): z.output<typeof removeProjectUserOutput> {
  return scope.write((tx) => {
    const project = getProjectRow(scope, input.project_id);
    requireProjectManager(scope, project.id, "change this project's users");
    const current = scope.statements(projectStatements).userOfProject.get({ id: input.project_user_id, projectId: project.id });
    if (!current) throw notFound('project_user', `No project user with id ${input.project_user_id} on this project`);
    tx.delete(projectUsers).where(eq(projectUsers.id, current.id)).run();
    tx.delete(timers).where(and(eq(timers.memberId, current.userId), eq(timers.projectId, project.id))).run();
    return { notice_code: 'project_user_removed', project_user_id: current.id, user_id: current.userId };
  });
}
