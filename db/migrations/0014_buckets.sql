CREATE TABLE "bucket_objects" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"bucket_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"content_type" text,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"max_bytes" bigint,
	"storage_key" text NOT NULL,
	"state" text DEFAULT 'uploading' NOT NULL,
	"scan_signature" text,
	"scan_engine" text,
	"scan_error" text,
	"scanned_at" timestamp (3) with time zone,
	"attachment_id" uuid,
	"upload_expires_at" timestamp (3) with time zone,
	"finalized_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "buckets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text DEFAULT 'custom' NOT NULL,
	"display_name" text,
	"description" text,
	"metadata" jsonb,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "share_link_opens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"share_link_id" uuid NOT NULL,
	"object_id" uuid,
	"kind" text NOT NULL,
	"outcome" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "share_links" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"object_id" uuid,
	"object_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"token_hash" text NOT NULL,
	"password_hash" text,
	"max_uses" integer,
	"one_time" boolean DEFAULT false NOT NULL,
	"uses_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bucket_objects" ADD CONSTRAINT "bucket_objects_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bucket_objects" ADD CONSTRAINT "bucket_objects_bucket_id_buckets_id_fk" FOREIGN KEY ("bucket_id") REFERENCES "public"."buckets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bucket_objects" ADD CONSTRAINT "bucket_objects_attachment_id_attachments_id_fk" FOREIGN KEY ("attachment_id") REFERENCES "public"."attachments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buckets" ADD CONSTRAINT "buckets_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_link_opens" ADD CONSTRAINT "share_link_opens_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_link_opens" ADD CONSTRAINT "share_link_opens_share_link_id_share_links_id_fk" FOREIGN KEY ("share_link_id") REFERENCES "public"."share_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_object_id_bucket_objects_id_fk" FOREIGN KEY ("object_id") REFERENCES "public"."bucket_objects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bucket_objects_bucket_idx" ON "bucket_objects" USING btree ("bucket_id","created_at","id");--> statement-breakpoint
CREATE INDEX "bucket_objects_org_state_idx" ON "bucket_objects" USING btree ("org_id","state");--> statement-breakpoint
CREATE UNIQUE INDEX "bucket_objects_attachment_key" ON "bucket_objects" USING btree ("attachment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "buckets_org_name_key" ON "buckets" USING btree ("org_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "buckets_org_reserved_key" ON "buckets" USING btree ("org_id","kind") WHERE "buckets"."kind" <> 'custom';--> statement-breakpoint
CREATE INDEX "buckets_org_created_idx" ON "buckets" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "share_link_opens_link_idx" ON "share_link_opens" USING btree ("share_link_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "share_links_token_key" ON "share_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "share_links_object_idx" ON "share_links" USING btree ("object_id","created_at");--> statement-breakpoint
CREATE INDEX "share_links_org_kind_idx" ON "share_links" USING btree ("org_id","kind","created_at");