/** Moved to `lib/http/rate-limit.ts`; this path remains for modules not yet updated (lib/console/throttle.ts). */
export * from "@/lib/http/rate-limit";
