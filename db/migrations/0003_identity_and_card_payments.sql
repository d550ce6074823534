CREATE TABLE `payment_processors` (
	`provider` text PRIMARY KEY NOT NULL,
	`secret_key` text NOT NULL,
	`webhook_secret` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `processor_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`invoice_id` text,
	`provider_payment_id` text,
	`amount_minor` integer,
	`currency` text,
	`outcome` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `processor_events_invoice_idx` ON `processor_events` (`invoice_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `workspace_identity` (
	`id` integer PRIMARY KEY NOT NULL,
	`legal_name` text DEFAULT '' NOT NULL,
	`address` text DEFAULT '' NOT NULL,
	`tax_id` text DEFAULT '' NOT NULL,
	`logo` blob,
	`logo_mime` text,
	`logo_raster` blob,
	`sender_name` text DEFAULT '' NOT NULL,
	`reply_to` text,
	`payment_instructions` text DEFAULT '' NOT NULL,
	`invoice_footer` text DEFAULT '' NOT NULL,
	`locale` text DEFAULT 'en-US' NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `clients` ADD `tax_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `overdue_at` text;--> statement-breakpoint
CREATE INDEX `invoices_credited_idx` ON `invoices` (`credited_invoice_id`);