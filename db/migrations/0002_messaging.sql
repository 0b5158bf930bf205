CREATE TABLE "system_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"filename" text,
	"content_type" text,
	"content_id" text,
	"disposition" text,
	"size_bytes" bigint NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inboxes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"domain_id" uuid NOT NULL,
	"address" text NOT NULL,
	"display_name" text,
	"mode" text DEFAULT 'agent' NOT NULL,
	"agent" text,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"inbox_id" uuid NOT NULL,
	"thread_id" uuid,
	"direction" text NOT NULL,
	"status" text NOT NULL,
	"channel" text NOT NULL,
	"from_address" text NOT NULL,
	"from_name" text,
	"to" text[] NOT NULL,
	"cc" text[] NOT NULL,
	"bcc" text[] NOT NULL,
	"reply_to" text,
	"subject" text DEFAULT '' NOT NULL,
	"text_body" text,
	"html_body" text,
	"message_id_header" text NOT NULL,
	"in_reply_to" text,
	"references" text[] NOT NULL,
	"headers" jsonb,
	"tags" jsonb,
	"channel_metadata" jsonb,
	"provider_message_id" text,
	"error" text,
	"request" jsonb,
	"idempotency_key" text,
	"size_bytes" bigint DEFAULT 0 NOT NULL,
	"scheduled_at" timestamp (3) with time zone,
	"sent_at" timestamp (3) with time zone,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbound_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"type" text NOT NULL,
	"recipient" text,
	"provider_message_id" text,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"details" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "suppressions" (
	"org_id" uuid NOT NULL,
	"address" text NOT NULL,
	"reason" text NOT NULL,
	"source_message_id" uuid,
	"provider_message_id" text,
	"feedback_type" text,
	"user_agent" text,
	"last_event_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppressions_pkey" PRIMARY KEY("org_id","address")
);
--> statement-breakpoint
CREATE TABLE "threads" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"inbox_id" uuid NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"last_message_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_events" (
	"position" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "ledger_events_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"type" text NOT NULL,
	"partition_key" text NOT NULL,
	"seq" bigint NOT NULL,
	"inbox_id" uuid,
	"thread_id" uuid,
	"message_id" uuid,
	"outbound_message_id" uuid,
	"provider_message_id" text,
	"idempotency_key" text,
	"data" jsonb NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_partitions" (
	"org_id" uuid NOT NULL,
	"partition_key" text NOT NULL,
	"last_seq" bigint NOT NULL,
	CONSTRAINT "ledger_partitions_pkey" PRIMARY KEY("org_id","partition_key")
);
--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_selector" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_private_key" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "dkim_public_key" text;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "record_status" jsonb;--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "last_checked_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inboxes" ADD CONSTRAINT "inboxes_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inboxes" ADD CONSTRAINT "inboxes_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_events" ADD CONSTRAINT "outbound_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_events" ADD CONSTRAINT "outbound_events_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_events" ADD CONSTRAINT "ledger_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_partitions" ADD CONSTRAINT "ledger_partitions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachments_message_idx" ON "attachments" USING btree ("message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "inboxes_address_key" ON "inboxes" USING btree ("address");--> statement-breakpoint
CREATE INDEX "inboxes_org_created_idx" ON "inboxes" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_org_created_idx" ON "messages" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_inbox_created_idx" ON "messages" USING btree ("inbox_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_thread_idx" ON "messages" USING btree ("thread_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_inbox_msgid_idx" ON "messages" USING btree ("inbox_id","message_id_header");--> statement-breakpoint
CREATE INDEX "messages_provider_idx" ON "messages" USING btree ("provider_message_id");--> statement-breakpoint
CREATE INDEX "messages_scheduled_idx" ON "messages" USING btree ("status","scheduled_at");--> statement-breakpoint
CREATE INDEX "outbound_events_message_idx" ON "outbound_events" USING btree ("message_id","occurred_at");--> statement-breakpoint
CREATE INDEX "threads_inbox_activity_idx" ON "threads" USING btree ("inbox_id","last_message_at","id");--> statement-breakpoint
CREATE INDEX "threads_org_activity_idx" ON "threads" USING btree ("org_id","last_message_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_events_event_id_key" ON "ledger_events" USING btree ("event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_events_partition_seq_key" ON "ledger_events" USING btree ("org_id","partition_key","seq");--> statement-breakpoint
CREATE INDEX "ledger_events_org_position_idx" ON "ledger_events" USING btree ("org_id","position");--> statement-breakpoint
CREATE INDEX "ledger_events_org_type_idx" ON "ledger_events" USING btree ("org_id","type","position");