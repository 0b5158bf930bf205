CREATE TABLE "letter_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"html" text NOT NULL,
	"variables" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "letters" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"status" text NOT NULL,
	"test_mode" boolean NOT NULL,
	"provider" text NOT NULL,
	"provider_letter_id" text,
	"to_address" jsonb NOT NULL,
	"from_address" jsonb,
	"delivery" text NOT NULL,
	"color" boolean NOT NULL,
	"sides" text NOT NULL,
	"address_placement" text NOT NULL,
	"page_count" integer NOT NULL,
	"size_bytes" integer NOT NULL,
	"price_cents" integer NOT NULL,
	"hold_id" uuid,
	"pdf_key" text NOT NULL,
	"description" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timeline" jsonb NOT NULL,
	"expected_delivery_date" text NOT NULL,
	"next_step_at" timestamp (3) with time zone,
	"failure_reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "letter_templates" ADD CONSTRAINT "letter_templates_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "letters" ADD CONSTRAINT "letters_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "letter_templates_org_idx" ON "letter_templates" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "letters_org_idx" ON "letters" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "letters_next_step_idx" ON "letters" USING btree ("next_step_at") WHERE "letters"."next_step_at" is not null;