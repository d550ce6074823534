export * from './workspace.ts';
export * from './clients.ts';
export * from './projects.ts';
export * from './time-entries.ts';
export * from './invoices.ts';
export * from './outbox.ts';
export * from './events.ts';
export * from './reports.ts';
