CREATE TABLE "phone_calls" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"number_id" uuid NOT NULL,
	"direction" text NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"status" text NOT NULL,
	"instructions" text NOT NULL,
	"greeting" text,
	"voice" text NOT NULL,
	"language" text NOT NULL,
	"max_duration_seconds" integer NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timeline" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"transcript" jsonb,
	"summary" jsonb,
	"recording_key" text,
	"recording" jsonb,
	"failure_reason" text,
	"provider" text NOT NULL,
	"provider_call_id" text,
	"deadline_at" timestamp (3) with time zone NOT NULL,
	"answered_at" timestamp (3) with time zone,
	"ended_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "phone_calls" ADD CONSTRAINT "phone_calls_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_calls" ADD CONSTRAINT "phone_calls_number_id_phone_numbers_id_fk" FOREIGN KEY ("number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "phone_calls_org_idx" ON "phone_calls" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_calls_provider_call_key" ON "phone_calls" USING btree ("provider_call_id");--> statement-breakpoint
CREATE INDEX "phone_calls_open_idx" ON "phone_calls" USING btree ("deadline_at") WHERE "phone_calls"."status" in ('queued', 'ringing', 'in_progress');