const LABELS: Record<string, string> = {
  pending_approval: 'Awaiting approval',
  unbilled: 'Approved',
  non_billable: 'Non-billable',
  billed: 'Billed',
  rejected: 'Rejected',
  draft: 'Draft',
  sending: 'Sending',
  sent: 'Sent',
  paid: 'Paid',
  partially_paid: 'Partly paid',
  void: 'Void',
  active: 'Active',
  archived: 'Archived',
  invited: 'Invited',
  none: 'No sign-in yet',
  inactive: 'Deactivated',
  pending: 'Pending',
  failed: 'Failed',
  revoked: 'Revoked',
  expired: 'Expired',
};

/** A status as a word (never colour alone). */
export function Badge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{LABELS[status] ?? status.replaceAll('_', ' ')}</span>;
}
