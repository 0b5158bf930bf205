ALTER TABLE "messages" ADD COLUMN "delivery_status" text GENERATED ALWAYS AS (case
  when direction = 'inbound' then 'received'
  when status <> 'sent' then status
  when channel_metadata ->> 'complainedAt' is not null then 'complained'
  when channel_metadata ->> 'bouncedAt' is not null then 'bounced'
  when channel_metadata ->> 'lastEventType' = 'DeliveryDelay' then 'delayed'
  when channel_metadata ->> 'lastEventType' = 'Delivery' then 'delivered'
  when channel <> 'email' then 'delivered'
  when provider_message_id is null then 'delivered'
  else 'sent' end) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "messages_org_delivery_status_idx" ON "messages" USING btree ("org_id","delivery_status","created_at","id");