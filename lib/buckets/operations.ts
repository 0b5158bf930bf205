import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as buckets from "./bucket-crud";
import * as objects from "./object-crud";
import * as bundles from "./share-bundles";
import * as links from "./share-links";
import * as uploads from "./uploads";

export const listBuckets = defineOperation(c.listBuckets, ({ db, principal, query }) =>
  buckets.listBuckets(db, principal, query),
);
export const createBucket = defineOperation(c.createBucket, ({ db, principal, body }) =>
  buckets.createBucket(db, principal, body),
);
export const getBucket = defineOperation(c.getBucket, ({ db, principal, params }) =>
  buckets.getBucket(db, principal, params.bucketId),
);
export const updateBucket = defineOperation(c.updateBucket, ({ db, principal, params, body }) =>
  buckets.updateBucket(db, principal, params.bucketId, body),
);
export const deleteBucket = defineOperation(c.deleteBucket, ({ db, principal, params }) =>
  buckets.deleteBucket(db, principal, params.bucketId),
);
export const listBucketObjects = defineOperation(c.listBucketObjects, ({ db, principal, params, query }) =>
  objects.listObjects(db, principal, params.bucketId, query),
);
export const createUpload = defineOperation(c.createUpload, ({ db, principal, params, body }) =>
  uploads.createUpload(db, principal, params.bucketId, body),
);
export const finalizeObject = defineOperation(c.finalizeObject, ({ db, principal, params }) =>
  uploads.finalizeObject(db, principal, params.bucketId, params.objectId),
);
export const getBucketObject = defineOperation(c.getBucketObject, ({ db, principal, params }) =>
  objects.getObject(db, principal, params.bucketId, params.objectId),
);
export const getObjectDownloadUrl = defineOperation(c.getObjectDownloadUrl, ({ db, principal, params, query }) =>
  objects.objectDownloadUrl(db, principal, params.bucketId, params.objectId, query.expiresInSeconds),
);
export const deleteBucketObject = defineOperation(c.deleteBucketObject, ({ db, principal, params }) =>
  objects.deleteObject(db, principal, params.bucketId, params.objectId),
);
export const batchDeleteBucketObjects = defineOperation(c.batchDeleteBucketObjects, ({ db, principal, params, body }) =>
  objects.batchDeleteObjects(db, principal, params.bucketId, body.objectIds),
);
export const createShareLink = defineOperation(c.createShareLink, ({ db, principal, params, body }) =>
  links.createShareLink(db, principal, params.bucketId, params.objectId, body),
);
export const listShareLinks = defineOperation(c.listShareLinks, ({ db, principal, params }) =>
  links.listShareLinks(db, principal, params.bucketId, params.objectId),
);
export const revokeShareLink = defineOperation(c.revokeShareLink, ({ db, principal, params }) =>
  links.revokeShareLink(db, principal, params.bucketId, params.objectId, params.linkId),
);
export const listShareLinkOpens = defineOperation(c.listShareLinkOpens, ({ db, principal, params }) =>
  links.listShareLinkOpens(db, principal, params.bucketId, params.objectId, params.linkId),
);
export const createShareBundle = defineOperation(c.createShareBundle, ({ db, principal, body }) =>
  bundles.createShareBundle(db, principal, body),
);
export const listShareBundles = defineOperation(c.listShareBundles, ({ db, principal }) =>
  bundles.listShareBundles(db, principal),
);
export const revokeShareBundle = defineOperation(c.revokeShareBundle, ({ db, principal, params }) =>
  bundles.revokeShareBundle(db, principal, params.bundleId),
);
