"use server";

import { runAction } from "@/lib/console/action";
import {
  createShareLink,
  createUpload,
  deleteBucketObject,
  finalizeObject,
  revokeShareLink,
} from "@/lib/buckets/operations";

/** Step one of an upload from the files page: the presigned PUT the browser sends the bytes to. */
export async function requestUploadAction(input: unknown) {
  return runAction(createUpload, input);
}

/** Step two: records the uploaded object (`pending`) and starts its scan. */
export async function finalizeUploadAction(input: unknown) {
  return runAction(finalizeObject, input);
}

export async function deleteObjectAction(input: unknown) {
  return runAction(deleteBucketObject, input);
}

/** A share link of a clean object; its URLs are shown once. */
export async function createShareLinkAction(input: unknown) {
  return runAction(createShareLink, input, { labels: { maxUses: "maximum uses", expiresAt: "expiry" } });
}

export async function revokeShareLinkAction(input: unknown) {
  return runAction(revokeShareLink, input);
}
