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
  overdue: 'Overdue',
  credit_note: 'Credit note',
  not_sent: 'Not sent yet',
  delivered: 'Delivered',
  enabled: 'On',
  disabled: 'Off',
};

/** A status as a word (never colour alone). */
export function Badge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{LABELS[status] ?? status.replaceAll('_', ' ')}</span>;
}

/**
 * An invoice's status as words: a credit note says so (its `draft` means issued, not e-mailed
 * yet), and "Overdue" stands beside the status when it is (derived by the server in the
 * workspace's zone).
 */
export const InvoiceStatus = ({ invoice }: { invoice: { status: string; overdue: boolean; kind: string } }) => (
  <span className="badges">
    {invoice.kind === 'credit_note' && <Badge status="credit_note" />}
    <Badge status={invoice.kind === 'credit_note' && invoice.status === 'draft' ? 'not_sent' : invoice.status} />
    {invoice.overdue && <Badge status="overdue" />}
  </span>
);
