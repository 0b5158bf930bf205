import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { dateTimeInput, isoDate, paginationSchema, uuidParam } from "@/lib/core/schemas";

/** Public ids: `buk_` / `shr_` and the row's UUID without dashes. */
export const bucketIdParam = z.string().regex(/^buk_[0-9a-f]{32}$/, "a bucket id (buk_…)");
export const shareLinkIdParam = z.string().regex(/^shr_[0-9a-f]{32}$/, "a share link id (shr_…)");

const tag = "Buckets";
const MAX_EXPIRY = 604_800;

export const SCAN_STATUSES = ["pending", "clean", "infected", "failed", "skipped"] as const;

export const bucketSchema = z.object({
  object: z.literal("bucket"),
  id: z.string(),
  name: z.string(),
  isDefault: z.boolean(),
  /** The reserved bucket that holds inbound email attachments (read-only, undeletable). */
  isInbound: z.boolean(),
  status: z.enum(["active", "archived"]),
  usedBytes: z.int().min(0),
  objectCount: z.int().min(0),
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});

export const bucketObjectSchema = z.object({
  object: z.literal("bucket_object"),
  id: z.uuid(),
  bucketId: z.string(),
  filename: z.string(),
  bytes: z.int().min(0),
  contentType: z.string().nullable(),
  scanStatus: z.enum(SCAN_STATUSES),
  /** The signature that flagged an infected object. */
  scanSignature: z.string().nullable(),
  scannedAt: isoDate.nullable(),
  createdAt: isoDate,
});

const bucketParams = z.strictObject({ bucketId: bucketIdParam });
const objectParams = z.strictObject({ bucketId: bucketIdParam, objectId: uuidParam });
const linkParams = z.strictObject({ bucketId: bucketIdParam, objectId: uuidParam, linkId: shareLinkIdParam });

const bucketFields = {
  displayName: z.string().min(1).max(200).nullable().optional(),
  description: z.string().max(2000).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
};

export const listBuckets = defineContract({
  id: "listBuckets",
  method: "GET",
  path: "/v1/buckets",
  access: "buckets:read",
  tag,
  summary: "List buckets",
  description:
    "The organization's buckets, the default and the reserved inbound bucket first, then oldest first; paginated. `usedBytes` and `objectCount` count finalized objects.",
  query: z.strictObject({ ...paginationQuery() }),
  response: z.object({ object: z.literal("list"), data: z.array(bucketSchema), pagination: paginationSchema }),
});

export const createBucket = defineContract({
  id: "createBucket",
  method: "POST",
  path: "/v1/buckets",
  access: "buckets:write",
  tag,
  summary: "Create a bucket",
  body: z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lower-case letters, digits and dashes, 1..63"),
    ...bucketFields,
  }),
  example: { name: "reports", displayName: "Reports" },
  errors: ["conflict"],
  response: bucketSchema,
});

export const getBucket = defineContract({
  id: "getBucket",
  method: "GET",
  path: "/v1/buckets/{bucketId}",
  access: "buckets:read",
  tag,
  summary: "Get a bucket",
  params: bucketParams,
  response: bucketSchema,
});

export const updateBucket = defineContract({
  id: "updateBucket",
  method: "PATCH",
  path: "/v1/buckets/{bucketId}",
  access: "buckets:write",
  tag,
  summary: "Update a bucket",
  description:
    "Display name, description, metadata and `status` (`active` or `archived`: an archived bucket takes no uploads).",
  params: bucketParams,
  body: z.strictObject({ ...bucketFields, status: z.enum(["active", "archived"]).optional() }),
  example: { displayName: "Quarterly reports" },
  response: bucketSchema,
});

export const deleteBucket = defineContract({
  id: "deleteBucket",
  method: "DELETE",
  path: "/v1/buckets/{bucketId}",
  access: "buckets:write",
  tag,
  summary: "Delete a bucket",
  description:
    "Deletes an empty bucket. The default and the reserved inbound bucket cannot be deleted (403); a bucket with objects is 409.",
  params: bucketParams,
  errors: ["not_permitted", "conflict"],
  response: z.object({ deleted: z.literal(true), id: z.string() }),
});

export const listBucketObjects = defineContract({
  id: "listBucketObjects",
  method: "GET",
  path: "/v1/buckets/{bucketId}/objects",
  access: "buckets:read",
  tag,
  summary: "List a bucket's objects",
  description: "Finalized objects, newest first, paginated.",
  params: bucketParams,
  query: z.strictObject({ ...paginationQuery(), scanStatus: z.enum(SCAN_STATUSES).optional() }),
  response: z.object({ object: z.literal("list"), data: z.array(bucketObjectSchema), pagination: paginationSchema }),
});

export const createUpload = defineContract({
  id: "createUpload",
  method: "POST",
  path: "/v1/buckets/{bucketId}/uploads",
  access: "buckets:write",
  tag,
  summary: "Request an upload URL",
  description:
    "Returns a PresignedUpload: PUT the bytes to `uploadUrl` with exactly the returned `headers` (the stored Content-Type, the declared type as `x-amz-meta-content-type`, the file name as `x-amz-meta-filename`) before it expires, then finalize. With `size` the PUT must carry exactly that many bytes, and the size is reserved against the organization's storage limit until finalize or expiry (413 when it does not fit); without it the URL accepts at most the room left under the limit (413 when there is none). A URL takes one upload.",
  params: bucketParams,
  body: z.strictObject({
    filename: z.string().min(1).max(255),
    contentType: z.string().min(1).max(255).optional(),
    size: z.int().min(0).optional(),
    expiresInSeconds: z.int().min(1).max(MAX_EXPIRY).optional(),
  }),
  example: { filename: "report.pdf", contentType: "application/pdf", size: 1024 },
  errors: ["not_permitted", "payload_too_large"],
  response: z.object({
    objectId: z.uuid(),
    uploadUrl: z.url(),
    method: z.literal("PUT"),
    headers: z.record(z.string(), z.string()),
    expiresInSeconds: z.int().min(1).max(MAX_EXPIRY),
    expiresAt: isoDate,
  }),
});

export const finalizeObject = defineContract({
  id: "finalizeObject",
  method: "POST",
  path: "/v1/buckets/{bucketId}/objects/{objectId}/finalize",
  access: "buckets:write",
  tag,
  summary: "Finalize an upload",
  description:
    "Records the uploaded bytes as an object in `pending` and starts its malware scan (`object.scanned` when it ends). Finalizing again answers the object as it is. 409 when nothing was uploaded yet; 413 (the bytes discarded) when they exceed the upload's maximum or would take the organization past its storage limit, counting what is stored and the sizes other uploads in progress reserved.",
  params: objectParams,
  errors: ["conflict", "payload_too_large"],
  response: bucketObjectSchema,
});

export const getBucketObject = defineContract({
  id: "getBucketObject",
  method: "GET",
  path: "/v1/buckets/{bucketId}/objects/{objectId}",
  access: "buckets:read",
  tag,
  summary: "Get an object",
  params: objectParams,
  response: bucketObjectSchema,
});

export const getObjectDownloadUrl = defineContract({
  id: "getObjectDownloadUrl",
  method: "GET",
  path: "/v1/buckets/{bucketId}/objects/{objectId}/download-url",
  access: "buckets:read",
  tag,
  summary: "Get a download URL",
  description: "A presigned URL (1..604800 s, default 3600) for the owner. Infected objects are never served (403).",
  params: objectParams,
  query: z.strictObject({ expiresInSeconds: z.coerce.number().int().min(1).max(MAX_EXPIRY).default(3600) }),
  errors: ["not_permitted"],
  response: z.object({ downloadUrl: z.url(), expiresInSeconds: z.int().min(1).max(MAX_EXPIRY), expiresAt: isoDate }),
});

export const deleteBucketObject = defineContract({
  id: "deleteBucketObject",
  method: "DELETE",
  path: "/v1/buckets/{bucketId}/objects/{objectId}",
  access: "buckets:write",
  tag,
  summary: "Delete an object",
  description: "Deletes the object, its bytes and its share links.",
  params: objectParams,
  response: z.object({ deleted: z.literal(true), id: z.uuid() }),
});

export const batchDeleteBucketObjects = defineContract({
  id: "batchDeleteBucketObjects",
  method: "POST",
  path: "/v1/buckets/{bucketId}/objects/batch-delete",
  access: "buckets:write",
  tag,
  summary: "Delete objects",
  description:
    "1..1000 ids. Each id succeeds or fails on its own (`failed`: id, code, message); a failure never aborts the rest.",
  params: bucketParams,
  body: z.strictObject({ objectIds: z.array(z.uuid()).min(1).max(1000) }),
  example: { objectIds: ["01930000-0000-7000-8000-000000000000"] },
  response: z.object({
    object: z.literal("batch_delete_result"),
    deleted: z.array(z.string()),
    failed: z.array(z.object({ id: z.string(), code: z.string(), message: z.string() })),
  }),
});

export const shareLinkSchema = z.object({
  object: z.literal("share_link"),
  id: z.string(),
  objectId: z.uuid(),
  hasPassword: z.boolean(),
  maxUses: z.int().nullable(),
  oneTime: z.boolean(),
  usesCount: z.int().min(0),
  expiresAt: isoDate.nullable(),
  revoked: z.boolean(),
  createdAt: isoDate,
});

const shareTag = "Sharing";
const shareErrors = ["conflict", "not_permitted"] as const;

export const createShareLink = defineContract({
  id: "createShareLink",
  method: "POST",
  path: "/v1/buckets/{bucketId}/objects/{objectId}/share-links",
  access: "buckets:write",
  tag: shareTag,
  summary: "Create a share link",
  description:
    "A public link to a `clean` object (409 while the scan is pending, 403 when infected or unscannable). Optional `password` (Argon2id), `maxUses`, `oneTime` (one download) and `expiresAt`. `shareUrl` (the branded `/s/` page, with a password form when one is set) and `downloadUrl` (`/d/`) are returned only here. Every download counts one use, exactly, however many arrive at once.",
  params: objectParams,
  body: z.strictObject({
    password: z.string().min(1).max(200).optional(),
    maxUses: z.int().min(1).max(1_000_000).optional(),
    oneTime: z.boolean().optional(),
    expiresAt: dateTimeInput().optional(),
  }),
  example: { maxUses: 5 },
  errors: [...shareErrors, "idempotency_key_replay_secret"],
  secretFields: ["shareUrl", "downloadUrl"],
  response: shareLinkSchema.extend({ shareUrl: z.url(), downloadUrl: z.url() }),
});

export const listShareLinks = defineContract({
  id: "listShareLinks",
  method: "GET",
  path: "/v1/buckets/{bucketId}/objects/{objectId}/share-links",
  access: "buckets:read",
  tag: shareTag,
  summary: "List an object's share links",
  description: "Newest first; URLs are not shown again.",
  params: objectParams,
  response: z.object({ object: z.literal("list"), data: z.array(shareLinkSchema) }),
});

export const revokeShareLink = defineContract({
  id: "revokeShareLink",
  method: "DELETE",
  path: "/v1/buckets/{bucketId}/objects/{objectId}/share-links/{linkId}",
  access: "buckets:write",
  tag: shareTag,
  summary: "Revoke a share link",
  params: linkParams,
  response: shareLinkSchema,
});

export const listShareLinkOpens = defineContract({
  id: "listShareLinkOpens",
  method: "GET",
  path: "/v1/buckets/{bucketId}/objects/{objectId}/share-links/{linkId}/opens",
  access: "buckets:read",
  tag: shareTag,
  summary: "A share link's opens",
  description:
    "Every open of the link, newest first (at most 500): page views, downloads and refusals (wrong password, used up, expired, revoked).",
  params: linkParams,
  response: z.object({
    object: z.literal("share_link_opens"),
    shareLinkId: z.string(),
    objectId: z.uuid(),
    summary: z.object({ views: z.int(), downloads: z.int(), refused: z.int(), lastOpenedAt: isoDate.nullable() }),
    data: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(["view", "download"]),
        outcome: z.string(),
        objectId: z.uuid().nullable(),
        ip: z.string().nullable(),
        userAgent: z.string().nullable(),
        createdAt: isoDate,
      }),
    ),
  }),
});

export const shareBundleSchema = z.object({
  object: z.literal("share_bundle"),
  id: z.uuid(),
  fileCount: z.int(),
  objectIds: z.array(z.uuid()),
  hasPassword: z.boolean(),
  maxUses: z.int().nullable(),
  usesCount: z.int().min(0),
  expiresAt: isoDate.nullable(),
  revoked: z.boolean(),
  createdAt: isoDate,
});

export const createShareBundle = defineContract({
  id: "createShareBundle",
  method: "POST",
  path: "/v1/share-links/bundles",
  access: "buckets:write",
  tag: shareTag,
  summary: "Share several objects",
  description:
    "One link to 1..100 `clean` objects of the organization. `shareUrl` (the `/s/` page listing the files) and `token` appear only here; each file download counts one use.",
  body: z.strictObject({
    objectIds: z.array(z.uuid()).min(1).max(100),
    password: z.string().min(1).max(200).optional(),
    maxUses: z.int().min(1).max(1_000_000).optional(),
    expiresAt: dateTimeInput().optional(),
  }),
  example: { objectIds: ["01930000-0000-7000-8000-000000000000"] },
  errors: [...shareErrors, "resource_not_found", "idempotency_key_replay_secret"],
  secretFields: ["shareUrl", "token"],
  response: shareBundleSchema.extend({ shareUrl: z.url(), token: z.string() }),
});

export const listShareBundles = defineContract({
  id: "listShareBundles",
  method: "GET",
  path: "/v1/share-links/bundles",
  access: "buckets:read",
  tag: shareTag,
  summary: "List share bundles",
  description: "Newest first, at most 200.",
  response: z.object({ object: z.literal("list"), data: z.array(shareBundleSchema) }),
});

export const revokeShareBundle = defineContract({
  id: "revokeShareBundle",
  method: "DELETE",
  path: "/v1/share-links/{bundleId}",
  access: "buckets:write",
  tag: shareTag,
  summary: "Revoke a share bundle",
  params: z.strictObject({ bundleId: uuidParam }),
  response: shareBundleSchema,
});
