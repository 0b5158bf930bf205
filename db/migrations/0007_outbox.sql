CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"subject_id" uuid,
	"payload" jsonb NOT NULL,
	"body" "bytea",
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_token" text,
	"lease_until" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "outbox" USING btree ("lease_until","created_at") WHERE "outbox"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "outbox_subject_idx" ON "outbox" USING btree ("subject_id");--> statement-breakpoint
CREATE INDEX "messages_org_idempotency_idx" ON "messages" USING btree ("org_id","idempotency_key") WHERE "messages"."idempotency_key" is not null and "messages"."direction" = 'outbound';