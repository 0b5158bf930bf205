CREATE TABLE "agent_bindings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"api_key_id" uuid,
	"inbox_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"display" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"reputation_state" text DEFAULT 'healthy' NOT NULL,
	"reputation_locked" boolean DEFAULT false NOT NULL,
	"reputation_reason" text,
	"reputation_tripped_at" timestamp (3) with time zone,
	"reputation_evaluated_at" timestamp (3) with time zone,
	"reputation_cleared_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "agent_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_bindings" ADD CONSTRAINT "agent_bindings_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_bindings_api_key_key" ON "agent_bindings" USING btree ("api_key_id") WHERE "agent_bindings"."api_key_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_bindings_inbox_key" ON "agent_bindings" USING btree ("inbox_id") WHERE "agent_bindings"."inbox_id" is not null;--> statement-breakpoint
CREATE INDEX "agent_bindings_agent_idx" ON "agent_bindings" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "agents_org_created_idx" ON "agents" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_agent_created_idx" ON "messages" USING btree ("agent_id","created_at") WHERE "messages"."agent_id" is not null;