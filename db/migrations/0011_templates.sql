CREATE TABLE "template_versions" (
	"template_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"org_id" uuid NOT NULL,
	"source" text NOT NULL,
	"subject" text,
	"variables" jsonb,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "template_versions_pkey" PRIMARY KEY("template_id","version")
);
--> statement-breakpoint
CREATE TABLE "templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"current_version" integer NOT NULL,
	"latest_version" integer NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "template_versions" ADD CONSTRAINT "template_versions_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "templates" ADD CONSTRAINT "templates_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "templates_org_slug_key" ON "templates" USING btree ("org_id","slug");--> statement-breakpoint
CREATE INDEX "templates_org_created_idx" ON "templates" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE FUNCTION "template_versions_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'template versions are immutable: publish a new version instead';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "template_versions_no_update" BEFORE UPDATE ON "template_versions" FOR EACH ROW EXECUTE FUNCTION "template_versions_immutable"();
