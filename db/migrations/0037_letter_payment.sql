ALTER TABLE "letter_batch_items" ADD COLUMN "payment" jsonb;--> statement-breakpoint
ALTER TABLE "letters" ADD COLUMN "payment" jsonb;