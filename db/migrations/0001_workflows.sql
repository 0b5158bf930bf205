CREATE TABLE "wf_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wf_functions" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"config" jsonb NOT NULL,
	"cron" text,
	"next_cron_at" timestamp (3) with time zone,
	"active" text DEFAULT 'active' NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wf_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"function_id" text NOT NULL,
	"event" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"retry_step" text,
	"steps" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"stack" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"step_attempts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"wait" jsonb,
	"due_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp (3) with time zone,
	"concurrency_key" text,
	"concurrency_limit" integer,
	"idempotency_key" text,
	"parent_run_id" uuid,
	"output" jsonb,
	"error" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"ended_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "wf_events_event_id_key" ON "wf_events" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "wf_events_name_idx" ON "wf_events" USING btree ("name","received_at");--> statement-breakpoint
CREATE INDEX "wf_functions_cron_idx" ON "wf_functions" USING btree ("next_cron_at");--> statement-breakpoint
CREATE INDEX "wf_runs_due_idx" ON "wf_runs" USING btree ("status","due_at");--> statement-breakpoint
CREATE INDEX "wf_runs_function_idx" ON "wf_runs" USING btree ("function_id","status");--> statement-breakpoint
CREATE INDEX "wf_runs_created_idx" ON "wf_runs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "wf_runs_waiting_idx" ON "wf_runs" USING btree ("status","function_id");--> statement-breakpoint
CREATE UNIQUE INDEX "wf_runs_idempotency_key" ON "wf_runs" USING btree ("function_id","idempotency_key");