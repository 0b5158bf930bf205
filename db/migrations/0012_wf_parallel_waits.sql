ALTER TABLE "wf_runs" ADD COLUMN "waits" jsonb;--> statement-breakpoint
ALTER TABLE "wf_runs" ADD COLUMN "resolved" jsonb;--> statement-breakpoint
CREATE INDEX "wf_runs_waits_idx" ON "wf_runs" USING btree ("function_id") WHERE "wf_runs"."waits" is not null;--> statement-breakpoint
-- Runs parked on one wait before this migration: their wait, with its deadline, becomes the list.
UPDATE "wf_runs" SET "waits" = jsonb_build_array("wait" || jsonb_build_object('until', to_char("due_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) WHERE "wait" IS NOT NULL AND "status" IN ('sleeping', 'waiting');
