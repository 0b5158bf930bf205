/** Moved to `lib/core/idempotency.ts`; this path remains for modules not yet updated (inngest/functions/housekeeping.ts). */
export { purgeExpiredIdempotencyKeys } from "@/lib/core/idempotency";
