import { fromPublicId, toPublicId } from "@/lib/core/public-ids";

/** Public ids of buckets (`buk_`) and share links (`shr_`): see lib/core/public-ids.ts. */
export const bucketPublicId = (uuid: string) => toPublicId("buk_", uuid);
export const bucketUuid = (id: string) => fromPublicId("buk_", id);
export const shareLinkPublicId = (uuid: string) => toPublicId("shr_", uuid);
export const shareLinkUuid = (id: string) => fromPublicId("shr_", id);
