CREATE TABLE "audit_chain_heads" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL,
	"last_hash" text NOT NULL,
	"last_created_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kid" text NOT NULL,
	"purpose" text NOT NULL,
	"org_id" uuid,
	"agent_id" text,
	"public_jwk" jsonb NOT NULL,
	"private_key_enc" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "agent_id" text;--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "chain_seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "row_hash" text;--> statement-breakpoint
ALTER TABLE "audit_chain_heads" ADD CONSTRAINT "audit_chain_heads_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_kid_key" ON "signing_keys" USING btree ("kid");--> statement-breakpoint
CREATE INDEX "signing_keys_agent_idx" ON "signing_keys" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "signing_keys_org_idx" ON "signing_keys" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_active_service_key" ON "signing_keys" USING btree ("purpose") WHERE purpose = 'service' and status = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "audit_logs_org_chain_seq_key" ON "audit_logs" USING btree ("org_id","chain_seq");