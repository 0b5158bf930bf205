CREATE TABLE "fanout_chunks" (
	"fanout_id" uuid NOT NULL,
	"chunk" integer NOT NULL,
	"rows" integer NOT NULL,
	"done_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fanout_chunks_fanout_id_chunk_pk" PRIMARY KEY("fanout_id","chunk")
);
--> statement-breakpoint
CREATE TABLE "fanout_rows" (
	"fanout_id" uuid NOT NULL,
	"member_key" text NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "fanout_rows_fanout_id_member_key_pk" PRIMARY KEY("fanout_id","member_key")
);
--> statement-breakpoint
CREATE TABLE "fanouts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"chunk_size" integer NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"chunks_total" integer,
	"chunks_done" integer DEFAULT 0 NOT NULL,
	"rows_done" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "fanout_chunks" ADD CONSTRAINT "fanout_chunks_fanout_id_fanouts_id_fk" FOREIGN KEY ("fanout_id") REFERENCES "public"."fanouts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fanout_rows" ADD CONSTRAINT "fanout_rows_fanout_id_fanouts_id_fk" FOREIGN KEY ("fanout_id") REFERENCES "public"."fanouts"("id") ON DELETE cascade ON UPDATE no action;