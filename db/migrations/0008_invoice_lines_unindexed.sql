PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_invoice_lines` (
	`id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`kind` text NOT NULL,
	`position` integer NOT NULL,
	`time_entry_id` text,
	`project_id` text,
	`task_id` text,
	`user_id` text,
	`notes` text DEFAULT '' NOT NULL,
	`seconds` integer,
	`hours` text,
	`hourly_rate_minor` integer,
	`quantity_milli` integer,
	`unit_amount_minor` integer,
	`file` text,
	`amount_minor` integer NOT NULL,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_invoice_lines`("id", "invoice_id", "kind", "position", "time_entry_id", "project_id", "task_id", "user_id", "notes", "seconds", "hours", "hourly_rate_minor", "quantity_milli", "unit_amount_minor", "file", "amount_minor") SELECT "id", "invoice_id", "kind", "position", "time_entry_id", "project_id", "task_id", "user_id", "notes", "seconds", "hours", "hourly_rate_minor", "quantity_milli", "unit_amount_minor", "file", "amount_minor" FROM `invoice_lines`;--> statement-breakpoint
DROP TABLE `invoice_lines`;--> statement-breakpoint
ALTER TABLE `__new_invoice_lines` RENAME TO `invoice_lines`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `invoice_lines_invoice_idx` ON `invoice_lines` (`invoice_id`,`position`);--> statement-breakpoint
DROP INDEX `time_entries_invoice_idx`;--> statement-breakpoint
CREATE INDEX `time_entries_invoice_idx` ON `time_entries` (`invoice_id`) WHERE "time_entries"."invoice_id" IS NOT NULL;