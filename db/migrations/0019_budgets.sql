CREATE TABLE "budgets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"scope_key" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"limits" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "send_usage" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"api_key_id" text,
	"agent_id" text,
	"recipients" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spend_holds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"amount_cents" integer NOT NULL,
	"reference" text NOT NULL,
	"status" text DEFAULT 'held' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "send_usage" ADD CONSTRAINT "send_usage_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spend_holds" ADD CONSTRAINT "spend_holds_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "budgets_org_scope_key" ON "budgets" USING btree ("org_id","scope","scope_key");--> statement-breakpoint
CREATE INDEX "send_usage_org_created_idx" ON "send_usage" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "send_usage_org_key_created_idx" ON "send_usage" USING btree ("org_id","api_key_id","created_at");--> statement-breakpoint
CREATE INDEX "send_usage_org_agent_created_idx" ON "send_usage" USING btree ("org_id","agent_id","created_at");--> statement-breakpoint
CREATE INDEX "send_usage_message_idx" ON "send_usage" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "spend_holds_org_created_idx" ON "spend_holds" USING btree ("org_id","created_at");