CREATE TABLE "inbox_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"inbox_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"address" text NOT NULL,
	"secret_ciphertext" text,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "outcome" text;--> statement-breakpoint
-- The neutral outcome of every existing outbound message, from what the old delivery status read.
UPDATE "messages" SET "outcome" = case
  when direction = 'inbound' then null
  when channel_metadata ->> 'complainedAt' is not null then 'complained'
  when channel_metadata ->> 'bouncedAt' is not null then 'bounced'
  when channel_metadata ->> 'lastEventType' = 'DeliveryDelay' then 'delayed'
  when channel_metadata ->> 'lastEventType' = 'Delivery' then 'delivered'
  when status <> 'sent' then null
  when channel <> 'email' or provider_message_id is null then 'delivered'
  else 'accepted' end;--> statement-breakpoint
ALTER TABLE "messages" drop column "delivery_status";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "delivery_status" text GENERATED ALWAYS AS (case
  when direction = 'inbound' then 'received'
  when status <> 'sent' then status
  when outcome is null or outcome = 'accepted' then 'sent'
  else outcome end) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "messages_org_delivery_status_idx" ON "messages" USING btree ("org_id","delivery_status","created_at","id");--> statement-breakpoint
ALTER TABLE "inbox_connections" ADD CONSTRAINT "inbox_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_connections" ADD CONSTRAINT "inbox_connections_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inbox_connections_channel_address_key" ON "inbox_connections" USING btree ("channel","address");--> statement-breakpoint
CREATE INDEX "inbox_connections_inbox_idx" ON "inbox_connections" USING btree ("inbox_id");--> statement-breakpoint
-- Every inbox's own address is its first connection.
INSERT INTO "inbox_connections" ("id", "org_id", "inbox_id", "channel", "address", "status", "created_at", "updated_at")
  SELECT gen_random_uuid(), "org_id", "id", 'email', "address", 'active', "created_at", "updated_at" FROM "inboxes";
