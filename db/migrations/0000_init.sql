CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`expires_at` text,
	`last_used_at` text,
	`revoked_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `roles` (
	`name` text PRIMARY KEY NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `team_members` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`time_zone` text NOT NULL,
	`profile_image_url` text DEFAULT '' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`organization_role` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_role`) REFERENCES `roles`(`name`) ON UPDATE cascade ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_members_email_idx` ON `team_members` ("email" COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `team_members_created_idx` ON `team_members` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `team_members_updated_idx` ON `team_members` (`updated_at`);--> statement-breakpoint
CREATE TABLE `workspace` (
	`id` text PRIMARY KEY NOT NULL,
	`subdomain` text NOT NULL,
	`name` text NOT NULL,
	`time_zone` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `clients` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`identifier` text NOT NULL,
	`secondary_name` text DEFAULT '' NOT NULL,
	`internal_notes` text DEFAULT '' NOT NULL,
	`currency` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`logo` text,
	`default_invoice_due_in_days` integer DEFAULT 30 NOT NULL,
	`include_hours_by_person_in_invoice` integer DEFAULT false NOT NULL,
	`full_address` text DEFAULT '' NOT NULL,
	`last_invoice_interval` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clients_identifier_idx` ON `clients` (`identifier`);--> statement-breakpoint
CREATE INDEX `clients_status_idx` ON `clients` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `clients_created_idx` ON `clients` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `clients_updated_idx` ON `clients` (`updated_at`);--> statement-breakpoint
CREATE TABLE `recipients` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`creator_id` text,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`deleted` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`creator_id`) REFERENCES `team_members`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recipients_client_idx` ON `recipients` (`client_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `recipients_client_email_idx` ON `recipients` (`client_id`,lower("email")) WHERE "recipients"."deleted" = 0;--> statement-breakpoint
CREATE TABLE `checklist_items` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`description` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `checklist_items_task_idx` ON `checklist_items` (`task_id`,`position`);--> statement-breakpoint
CREATE TABLE `project_users` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`hourly_rate_minor` integer DEFAULT 0 NOT NULL,
	`approval_type` text DEFAULT 'manual_approval' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `team_members`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_users_project_user_idx` ON `project_users` (`project_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `project_users_user_idx` ON `project_users` (`user_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`identifier` text NOT NULL,
	`billing_method` text NOT NULL,
	`hourly_rate_minor` integer DEFAULT 0 NOT NULL,
	`flat_amount_minor` integer,
	`currency` text NOT NULL,
	`internal_notes` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`time_round_upto` integer DEFAULT 0 NOT NULL,
	`autolock_enabled` integer DEFAULT false NOT NULL,
	`lock_end_of_day` integer DEFAULT false NOT NULL,
	`lock_end_of_week` integer DEFAULT false NOT NULL,
	`lock_end_of_month` integer DEFAULT false NOT NULL,
	`reply_to` text,
	`enable_approvals` integer DEFAULT false NOT NULL,
	`notify_instantly` integer DEFAULT false NOT NULL,
	`notify_weekly` integer DEFAULT false NOT NULL,
	`notification_day` text,
	`notification_time` text,
	`last_invoice_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_identifier_idx` ON `projects` (`identifier`);--> statement-breakpoint
CREATE INDEX `projects_client_idx` ON `projects` (`client_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `projects_status_idx` ON `projects` (`status`);--> statement-breakpoint
CREATE INDEX `projects_created_idx` ON `projects` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `projects_updated_idx` ON `projects` (`updated_at`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`billable` integer DEFAULT true NOT NULL,
	`hourly_rate_minor` integer DEFAULT 0 NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tasks_project_idx` ON `tasks` (`project_id`,`position`);--> statement-breakpoint
CREATE TABLE `approval_digests` (
	`project_id` text NOT NULL,
	`sent_for` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `sent_for`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `time_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`project_id` text NOT NULL,
	`task_id` text NOT NULL,
	`user_id` text NOT NULL,
	`recorded_on` text NOT NULL,
	`entered_seconds` integer NOT NULL,
	`seconds` integer NOT NULL,
	`notes` text DEFAULT '' NOT NULL,
	`metadata` text,
	`status` text NOT NULL,
	`is_override` integer DEFAULT false NOT NULL,
	`invoice_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `team_members`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `time_entries_user_day_idx` ON `time_entries` (`user_id`,`recorded_on`);--> statement-breakpoint
CREATE INDEX `time_entries_project_day_idx` ON `time_entries` (`project_id`,`recorded_on`);--> statement-breakpoint
CREATE INDEX `time_entries_status_idx` ON `time_entries` (`status`);--> statement-breakpoint
CREATE INDEX `time_entries_invoice_idx` ON `time_entries` (`invoice_id`);--> statement-breakpoint
CREATE INDEX `time_entries_created_idx` ON `time_entries` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `time_entries_updated_idx` ON `time_entries` (`updated_at`);--> statement-breakpoint
CREATE TABLE `time_entry_checklist_items` (
	`time_entry_id` text NOT NULL,
	`checklist_item_id` text NOT NULL,
	`is_completed` integer NOT NULL,
	PRIMARY KEY(`time_entry_id`, `checklist_item_id`),
	FOREIGN KEY (`time_entry_id`) REFERENCES `time_entries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`checklist_item_id`) REFERENCES `checklist_items`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `time_entry_overrides` (
	`id` text PRIMARY KEY NOT NULL,
	`time_entry_id` text NOT NULL,
	`project_id` text NOT NULL,
	`recorded_on` text NOT NULL,
	`actor_id` text NOT NULL,
	`action` text NOT NULL,
	`locked_since` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`actor_id`) REFERENCES `team_members`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `time_entry_overrides_created_idx` ON `time_entry_overrides` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `time_entry_overrides_project_idx` ON `time_entry_overrides` (`project_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `invoice_lines` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `invoice_lines_invoice_idx` ON `invoice_lines` (`invoice_id`,`position`);--> statement-breakpoint
CREATE INDEX `invoice_lines_entry_idx` ON `invoice_lines` (`time_entry_id`);--> statement-breakpoint
CREATE TABLE `invoice_projects` (
	`invoice_id` text NOT NULL,
	`project_id` text NOT NULL,
	PRIMARY KEY(`invoice_id`, `project_id`),
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `invoice_recipients` (
	`invoice_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	PRIMARY KEY(`invoice_id`, `recipient_id`),
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `invoice_reminders` (
	`invoice_id` text NOT NULL,
	`remind_on` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`invoice_id`, `remind_on`),
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `invoice_taxes` (
	`id` text PRIMARY KEY NOT NULL,
	`invoice_id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`percentage` text NOT NULL,
	`notes` text DEFAULT '' NOT NULL,
	`selected` integer NOT NULL,
	`amount_minor` integer NOT NULL,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `invoice_taxes_invoice_idx` ON `invoice_taxes` (`invoice_id`,`position`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`creator_id` text NOT NULL,
	`number` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`currency` text NOT NULL,
	`issue_date` text NOT NULL,
	`due_date` text NOT NULL,
	`due_date_period` integer,
	`interval` text,
	`notes` text DEFAULT '' NOT NULL,
	`subtotal_minor` integer NOT NULL,
	`tax_minor` integer NOT NULL,
	`total_minor` integer NOT NULL,
	`include_hours_by_person` integer DEFAULT false NOT NULL,
	`include_hours_by_task` integer DEFAULT false NOT NULL,
	`include_time_entries` integer DEFAULT false NOT NULL,
	`send_automated_reminder_email` integer DEFAULT false NOT NULL,
	`include_payment_link` integer DEFAULT false NOT NULL,
	`payment_provider` text,
	`display_task_name` integer DEFAULT true NOT NULL,
	`display_person_name` integer DEFAULT true NOT NULL,
	`display_date` integer DEFAULT true NOT NULL,
	`display_note` integer DEFAULT true NOT NULL,
	`display_project_name` integer DEFAULT true NOT NULL,
	`send_email` integer DEFAULT false NOT NULL,
	`email_subject` text,
	`email_message` text,
	`attach_pdf` integer DEFAULT false NOT NULL,
	`send_me_a_copy` integer DEFAULT false NOT NULL,
	`public_token` text NOT NULL,
	`sent_at` text,
	`paid_at` text,
	`voided_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`creator_id`) REFERENCES `team_members`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_number_idx` ON `invoices` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_token_idx` ON `invoices` (`public_token`);--> statement-breakpoint
CREATE INDEX `invoices_client_idx` ON `invoices` (`client_id`,`issue_date`);--> statement-breakpoint
CREATE INDEX `invoices_status_idx` ON `invoices` (`status`,`due_date`);--> statement-breakpoint
CREATE INDEX `invoices_created_idx` ON `invoices` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_updated_idx` ON `invoices` (`updated_at`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`invoice_id` text,
	`recipient_id` text,
	`to_address` text NOT NULL,
	`to_name` text,
	`reply_to` text,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text,
	`attach_invoice_pdf` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`claimed_at` text,
	`last_error` text,
	`message_id` text NOT NULL,
	`sent_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_due_idx` ON `outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `outbox_invoice_idx` ON `outbox` (`invoice_id`);