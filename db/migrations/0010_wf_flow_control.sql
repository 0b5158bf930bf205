CREATE TABLE "wf_throttles" (
	"function_id" text NOT NULL,
	"key" text NOT NULL,
	"tat" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "wf_throttles_function_id_key_pk" PRIMARY KEY("function_id","key")
);
--> statement-breakpoint
ALTER TABLE "wf_runs" ADD COLUMN "events" jsonb;--> statement-breakpoint
ALTER TABLE "wf_runs" ADD COLUMN "throttle_key" text;--> statement-breakpoint
ALTER TABLE "wf_runs" ADD COLUMN "rate_key" text;--> statement-breakpoint
ALTER TABLE "wf_runs" ADD COLUMN "gather_key" text;--> statement-breakpoint
ALTER TABLE "wf_runs" ADD COLUMN "priority" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "wf_runs_rate_idx" ON "wf_runs" USING btree ("function_id","rate_key","created_at") WHERE "wf_runs"."rate_key" is not null;--> statement-breakpoint
CREATE INDEX "wf_runs_gather_idx" ON "wf_runs" USING btree ("function_id","gather_key") WHERE "wf_runs"."gather_key" is not null and "wf_runs"."started_at" is null;