CREATE TABLE "slack_apps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"origin" text NOT NULL,
	"app_id" text NOT NULL,
	"client_id" text NOT NULL,
	"name" text,
	"client_secret_ciphertext" text,
	"signing_secret_ciphertext" text,
	"context_mode" text DEFAULT 'mentions' NOT NULL,
	"ambient_mode" text DEFAULT 'off' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"processed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slack_oauth_states" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"slack_app_id" uuid NOT NULL,
	"inbox_id" uuid NOT NULL,
	"secret_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "slack_apps" ADD CONSTRAINT "slack_apps_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_oauth_states" ADD CONSTRAINT "slack_oauth_states_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_oauth_states" ADD CONSTRAINT "slack_oauth_states_slack_app_id_slack_apps_id_fk" FOREIGN KEY ("slack_app_id") REFERENCES "public"."slack_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "slack_oauth_states" ADD CONSTRAINT "slack_oauth_states_inbox_id_inboxes_id_fk" FOREIGN KEY ("inbox_id") REFERENCES "public"."inboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "slack_apps_org_idx" ON "slack_apps" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "slack_apps_app_id_idx" ON "slack_apps" USING btree ("app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "slack_events_event_id_key" ON "slack_events" USING btree ("event_id");