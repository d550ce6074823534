import { workspace } from '../db/schema/index.ts';
import type { Database } from '../db/index.ts';
import type { WorkspaceHandle } from './handle.ts';

export interface WorkspaceInfo {
  id: string;
  subdomain: string;
  name: string;
  timeZone: string;
}

/** The workspace row never changes after creation, so it is read once per open file. */
const readInfo = (db: Database): WorkspaceInfo => {
  const row = db.select().from(workspace).get();
  if (!row) throw new Error('workspace file has no workspace row');
  return { id: row.id, subdomain: row.subdomain, name: row.name, timeZone: row.timeZone };
};

export const workspaceInfo = (handle: WorkspaceHandle): WorkspaceInfo => handle.memo(readInfo);
