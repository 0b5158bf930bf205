CREATE TABLE "provider_callbacks" (
	"provider" text NOT NULL,
	"callback_key" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_callbacks_provider_callback_key_pk" PRIMARY KEY("provider","callback_key")
);
