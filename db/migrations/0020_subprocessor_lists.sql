CREATE TABLE "subprocessor_lists" (
	"version" integer PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"subprocessors" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
