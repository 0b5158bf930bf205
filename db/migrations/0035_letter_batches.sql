CREATE TABLE "letter_batch_items" (
	"batch_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"letter_id" uuid NOT NULL,
	"to_address" jsonb NOT NULL,
	"template_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" jsonb,
	CONSTRAINT "letter_batch_items_batch_id_position_pk" PRIMARY KEY("batch_id","position")
);
--> statement-breakpoint
CREATE TABLE "letter_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"template_id" uuid NOT NULL,
	"request" jsonb NOT NULL,
	"total" integer NOT NULL,
	"fanout_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "letter_batch_items" ADD CONSTRAINT "letter_batch_items_batch_id_letter_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."letter_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "letter_batches" ADD CONSTRAINT "letter_batches_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "letter_batches_org_idx" ON "letter_batches" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "letters_provider_letter_idx" ON "letters" USING btree ("provider","provider_letter_id");