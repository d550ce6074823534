CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`invoice_id` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`paid_on` text NOT NULL,
	`method` text NOT NULL,
	`reference` text DEFAULT '' NOT NULL,
	`provider_payment_id` text,
	`recorded_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payments_invoice_idx` ON `payments` (`invoice_id`,`paid_on`);--> statement-breakpoint
CREATE INDEX `payments_paid_on_idx` ON `payments` (`paid_on`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_idx` ON `payments` (`provider_payment_id`);--> statement-breakpoint
ALTER TABLE `invoices` ADD `kind` text DEFAULT 'invoice' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `credited_invoice_id` text;