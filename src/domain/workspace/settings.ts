import * as z from 'zod';
import { requireAdmin } from '../access.ts';
import type { Scope } from '../scope.ts';
import { detailsOutput, workspaceDetails } from './details.ts';
import { getIdentity } from './identity.ts';
import { getPaymentProcessor } from './payment-processor.ts';
import { identityRecord, processorRecord } from './schemas.ts';

export const settingsOutput = z.object({ details: detailsOutput, identity: identityRecord, payment_processor: processorRecord });

/**
 * `workspace.settings`: the settings page's data in one call: the workspace's facts, its identity on
 * invoices and mail, and whether card payment is set up (secrets only as their last 4 characters).
 */
export function workspaceSettings(scope: Scope): z.output<typeof settingsOutput> {
  requireAdmin(scope, 'see the workspace settings');
  return { details: workspaceDetails(scope), identity: getIdentity(scope).identity, payment_processor: getPaymentProcessor(scope).payment_processor };
}
