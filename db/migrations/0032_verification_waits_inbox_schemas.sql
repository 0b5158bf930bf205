CREATE TABLE "inbox_schemas" (
	"inbox_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"schema" jsonb NOT NULL,
	"on_validation_error" text DEFAULT 'quarantine' NOT NULL,
	"extraction_hint" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_waits" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"inbox_id" uuid NOT NULL,
	"agent_id" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"from_hint" text,
	"instruction" text,
	"idempotency_key" text,
	"result" text,
	"result_kind" text,
	"from_address" text,
	"message_id" uuid,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"expired_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "structured" jsonb;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "extraction_status" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "extraction_errors" jsonb;--> statement-breakpoint
ALTER TABLE "inbox_schemas" ADD CONSTRAINT "inbox_schemas_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_waits" ADD CONSTRAINT "verification_waits_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_waits" ADD CONSTRAINT "verification_waits_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "verification_waits_inbox_idx" ON "verification_waits" USING btree ("inbox_id","created_at","id");--> statement-breakpoint
CREATE INDEX "verification_waits_pending_idx" ON "verification_waits" USING btree ("expires_at") WHERE "verification_waits"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "verification_waits_idempotency_key" ON "verification_waits" USING btree ("inbox_id","idempotency_key") WHERE "verification_waits"."idempotency_key" is not null;