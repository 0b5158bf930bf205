CREATE TABLE "contact_handles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"value" text NOT NULL,
	"label" text,
	"is_primary" boolean DEFAULT false NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text DEFAULT 'person' NOT NULL,
	"display_name" text NOT NULL,
	"alias" text,
	"info" text,
	"avatar_url" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_handles" ADD CONSTRAINT "contact_handles_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_handles_org_channel_value_key" ON "contact_handles" USING btree ("org_id","channel","value");--> statement-breakpoint
CREATE UNIQUE INDEX "contact_handles_primary_key" ON "contact_handles" USING btree ("contact_id","channel") WHERE "contact_handles"."is_primary";--> statement-breakpoint
CREATE INDEX "contact_handles_contact_idx" ON "contact_handles" USING btree ("contact_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_org_alias_key" ON "contacts" USING btree ("org_id","alias");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_org_self_key" ON "contacts" USING btree ("org_id") WHERE "contacts"."kind" = 'self';--> statement-breakpoint
CREATE INDEX "contacts_org_created_idx" ON "contacts" USING btree ("org_id","created_at","id");