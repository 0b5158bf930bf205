-- Console search (issue 14): substring search over messages (subject, sender, recipients) and thread
-- subjects, backed by trigram indexes. pg_trgm is a trusted extension (PostgreSQL 13+); PGlite loads
-- it in db/client.ts. The text searched is one immutable function so the index and the query agree
-- (lib/messages/read.ts builds the same call).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE OR REPLACE FUNCTION svc_message_search_text(subject text, from_address text, from_name text, recipients text[])
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT lower(coalesce(subject, '') || ' ' || coalesce(from_address, '') || ' ' || coalesce(from_name, '') || ' ' || coalesce(array_to_string(recipients, ' '), '')) $$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_search_trgm_idx" ON "messages" USING gin (svc_message_search_text("subject", "from_address", "from_name", "to") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "threads_subject_trgm_idx" ON "threads" USING gin (lower("subject") gin_trgm_ops);
