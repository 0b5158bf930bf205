CREATE TABLE "request_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"source" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"query" text,
	"status" integer NOT NULL,
	"error_code" text,
	"key_id" uuid,
	"actor" text NOT NULL,
	"duration_ms" integer NOT NULL,
	"request_id" text NOT NULL,
	"ip" text,
	"request_body" text,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_logs_org_created_idx" ON "request_logs" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_org_key_created_idx" ON "request_logs" USING btree ("org_id","key_id","created_at");--> statement-breakpoint
CREATE INDEX "request_logs_created_idx" ON "request_logs" USING btree ("created_at");