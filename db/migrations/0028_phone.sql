CREATE TABLE "phone_numbers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"phone_number" text NOT NULL,
	"country_code" text NOT NULL,
	"number_type" text NOT NULL,
	"status" text NOT NULL,
	"capabilities" text[] DEFAULT '{}'::text[] NOT NULL,
	"inbox_id" uuid,
	"agent_id" uuid,
	"monthly_cost_cents" integer DEFAULT 0 NOT NULL,
	"setup_cost_cents" integer DEFAULT 0 NOT NULL,
	"requirements" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"inbound_instructions" text,
	"inbound_greeting" text,
	"inbound_voice" text,
	"inbound_language" text,
	"provider" text NOT NULL,
	"provider_id" text,
	"purchased_at" timestamp (3) with time zone,
	"released_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "telephony_callbacks" (
	"provider" text NOT NULL,
	"event_key" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telephony_callbacks_pkey" PRIMARY KEY("provider","event_key")
);
--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "phone_numbers_org_idx" ON "phone_numbers" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_live_key" ON "phone_numbers" USING btree ("phone_number") WHERE "phone_numbers"."status" in ('pending', 'active', 'releasing');