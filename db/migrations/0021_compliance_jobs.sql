CREATE TABLE "compliance_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"subject" jsonb NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"erased_audit_rows" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"requested_chain_seq" bigint,
	"certificate" jsonb,
	"error" text,
	"requested_by" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "compliance_jobs" ADD CONSTRAINT "compliance_jobs_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "compliance_jobs_org_created_idx" ON "compliance_jobs" USING btree ("org_id","created_at");