-- Console contact search (issue 14): `listContacts`' `q` is a case-insensitive substring of the name,
-- the alias or any handle (ILIKE '%q%'), which these trigram indexes serve (pg_trgm: 0016_search).
CREATE INDEX IF NOT EXISTS "contacts_display_name_trgm_idx" ON "contacts" USING gin ("display_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_alias_trgm_idx" ON "contacts" USING gin ("alias" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_handles_value_trgm_idx" ON "contact_handles" USING gin ("value" gin_trgm_ops);
