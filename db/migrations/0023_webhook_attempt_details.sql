ALTER TABLE "webhook_deliveries" ADD COLUMN "request" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "response_headers" jsonb;