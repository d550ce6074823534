CREATE TABLE `time_entry_combos` (
	`project_id` text NOT NULL,
	`task_id` text NOT NULL,
	`user_id` text NOT NULL,
	`first_on` text NOT NULL,
	`last_on` text NOT NULL,
	PRIMARY KEY(`project_id`, `task_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `time_entries_unbilled_idx` ON `time_entries` (`project_id`,`task_id`,`user_id`,`recorded_on`,`seconds`) WHERE "time_entries"."status" = 'unbilled';--> statement-breakpoint
CREATE INDEX `time_entries_day_idx` ON `time_entries` (`recorded_on`);