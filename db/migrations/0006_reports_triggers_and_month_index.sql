-- Written by hand: drizzle-kit expresses neither triggers nor an index expression with commas.
-- Keep this file when migrations are regenerated (test/reports.schema.test.ts checks its objects).
--
-- The covering index of the reports (src/domain/reports/entry-totals.ts): one seek per (project,
-- task, person) reads that combination's entries ordered by month and status, so report totals by
-- month stream out of it without a sort.
CREATE INDEX `time_entries_report_idx` ON `time_entries` (`project_id`, `task_id`, `user_id`, substr(`recorded_on`, 1, 7), `status`, `recorded_on`, `seconds`);
--> statement-breakpoint
-- time_entry_combos (src/db/schema/reports.ts) only ever gains combinations or widens their days.
CREATE TRIGGER `time_entry_combos_after_insert` AFTER INSERT ON `time_entries` BEGIN
  INSERT INTO `time_entry_combos` (`project_id`, `task_id`, `user_id`, `first_on`, `last_on`)
  VALUES (NEW.`project_id`, NEW.`task_id`, NEW.`user_id`, NEW.`recorded_on`, NEW.`recorded_on`)
  ON CONFLICT (`project_id`, `task_id`, `user_id`) DO UPDATE
  SET `first_on` = min(`first_on`, excluded.`first_on`), `last_on` = max(`last_on`, excluded.`last_on`);
END;
--> statement-breakpoint
CREATE TRIGGER `time_entry_combos_after_update` AFTER UPDATE OF `project_id`, `task_id`, `user_id`, `recorded_on` ON `time_entries` BEGIN
  INSERT INTO `time_entry_combos` (`project_id`, `task_id`, `user_id`, `first_on`, `last_on`)
  VALUES (NEW.`project_id`, NEW.`task_id`, NEW.`user_id`, NEW.`recorded_on`, NEW.`recorded_on`)
  ON CONFLICT (`project_id`, `task_id`, `user_id`) DO UPDATE
  SET `first_on` = min(`first_on`, excluded.`first_on`), `last_on` = max(`last_on`, excluded.`last_on`);
END;
--> statement-breakpoint
-- Entries recorded before this migration.
INSERT INTO `time_entry_combos` (`project_id`, `task_id`, `user_id`, `first_on`, `last_on`)
SELECT `project_id`, `task_id`, `user_id`, min(`recorded_on`), max(`recorded_on`) FROM `time_entries` WHERE true GROUP BY `project_id`, `task_id`, `user_id`
ON CONFLICT (`project_id`, `task_id`, `user_id`) DO UPDATE
SET `first_on` = min(`first_on`, excluded.`first_on`), `last_on` = max(`last_on`, excluded.`last_on`);
