import type { recipients } from '../../db/schema/index.ts';
import type { RecipientRecord } from './schemas.ts';

export type RecipientRow = typeof recipients.$inferSelect;

export const toRecipientRecord = (row: RecipientRow): RecipientRecord => ({
  id: row.id,
  creator_id: row.creatorId,
  client_id: row.clientId,
  name: row.name,
  email: row.email,
  deleted: row.deleted,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});
