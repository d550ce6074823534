ALTER TABLE `payments` ADD `refund_of` text;--> statement-breakpoint
CREATE INDEX `payments_refund_of_idx` ON `payments` (`refund_of`);