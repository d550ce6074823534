DROP INDEX `time_entries_status_idx`;--> statement-breakpoint
DROP INDEX `time_entries_invoice_idx`;--> statement-breakpoint
CREATE INDEX `time_entries_pending_idx` ON `time_entries` (`project_id`,`recorded_on`) WHERE "time_entries"."status" = 'pending_approval';