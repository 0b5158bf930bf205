CREATE TABLE "simulated_carrier_callbacks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"params" jsonb NOT NULL,
	"due_at" timestamp (3) with time zone NOT NULL,
	"lease_until" timestamp (3) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "simulated_carrier_callbacks_due_idx" ON "simulated_carrier_callbacks" USING btree ("due_at");