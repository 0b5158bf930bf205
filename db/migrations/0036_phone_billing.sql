ALTER TABLE "phone_numbers" ADD COLUMN "paid_months" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "billing_retry_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "release_reason" text;