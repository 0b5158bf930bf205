import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { attachments } from "./messaging";
import { organizations } from "./organizations";

export const BUCKET_KINDS = ["default", "inbound", "custom"] as const;
export const BUCKET_STATUSES = ["active", "archived"] as const;
/** `uploading` is internal (an upload URL was issued, not finalized yet); the API shows the rest. */
export const OBJECT_STATES = ["uploading", "pending", "clean", "infected", "failed", "skipped"] as const;

/**
 * Owner-scoped containers of stored files. Every organization has one `default` and one `inbound`
 * (the reserved bucket for inbound email attachments); neither can be deleted.
 */
export const buckets = pgTable(
  "buckets",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    kind: text({ enum: BUCKET_KINDS }).notNull().default("custom"),
    displayName: text(),
    description: text(),
    metadata: jsonb().$type<Record<string, unknown>>(),
    status: text({ enum: BUCKET_STATUSES }).notNull().default("active"),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("buckets_org_name_key").on(t.orgId, t.name),
    uniqueIndex("buckets_org_reserved_key").on(t.orgId, t.kind).where(sql`${t.kind} <> 'custom'`),
    index("buckets_org_created_idx").on(t.orgId, t.createdAt, t.id),
  ],
);

/**
 * Stored files. A row exists from the moment an upload URL is issued (`uploading`, which claims
 * the storage key) and becomes `pending` at finalize; the scan moves it to `clean`, `infected` or
 * `failed`. Inbound email attachments are objects of the inbound bucket that point at the
 * attachment's bytes (`attachmentId`): the attachment owns those bytes.
 */
export const bucketObjects = pgTable(
  "bucket_objects",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    bucketId: uuid()
      .notNull()
      .references(() => buckets.id, { onDelete: "cascade" }),
    filename: text().notNull(),
    contentType: text(),
    bytes: bigint({ mode: "number" }).notNull().default(0),
    /** Largest body the upload URL accepts. */
    maxBytes: bigint({ mode: "number" }),
    storageKey: text().notNull(),
    state: text({ enum: OBJECT_STATES }).notNull().default("uploading"),
    scanSignature: text(),
    scanEngine: text(),
    scanError: text(),
    scannedAt: tstz(),
    attachmentId: uuid().references(() => attachments.id, { onDelete: "cascade" }),
    uploadExpiresAt: tstz(),
    finalizedAt: tstz(),
    createdAt: createdAt(),
  },
  (t) => [
    index("bucket_objects_bucket_idx").on(t.bucketId, t.createdAt, t.id),
    index("bucket_objects_org_state_idx").on(t.orgId, t.state),
    uniqueIndex("bucket_objects_attachment_key").on(t.attachmentId),
  ],
);

/**
 * Share links of one object (`kind` object) or of several (`kind` bundle, `objectIds`). The token
 * is shown once; only its SHA-256 is kept. `usesCount` is moved by one guarded UPDATE, so it is
 * exact under concurrent downloads.
 */
export const shareLinks = pgTable(
  "share_links",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    kind: text({ enum: ["object", "bundle"] }).notNull(),
    objectId: uuid().references(() => bucketObjects.id, { onDelete: "cascade" }),
    objectIds: uuid().array().notNull().default(sql`'{}'::uuid[]`),
    tokenHash: text().notNull(),
    passwordHash: text(),
    maxUses: integer(),
    oneTime: boolean().notNull().default(false),
    usesCount: integer().notNull().default(0),
    expiresAt: tstz(),
    revokedAt: tstz(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("share_links_token_key").on(t.tokenHash),
    index("share_links_object_idx").on(t.objectId, t.createdAt),
    index("share_links_org_kind_idx").on(t.orgId, t.kind, t.createdAt),
  ],
);

/** Every open of a share link: the page, a download, or a refusal (wrong password, used up, …). */
export const shareLinkOpens = pgTable(
  "share_link_opens",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    shareLinkId: uuid()
      .notNull()
      .references(() => shareLinks.id, { onDelete: "cascade" }),
    objectId: uuid(),
    kind: text({ enum: ["view", "download"] }).notNull(),
    outcome: text().notNull(),
    ip: text(),
    userAgent: text(),
    createdAt: createdAt(),
  },
  (t) => [index("share_link_opens_link_idx").on(t.shareLinkId, t.createdAt)],
);
