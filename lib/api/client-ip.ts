/** Moved to `lib/http/client-ip.ts`; this path remains for modules not yet updated (lib/console/throttle.ts). */
export * from "@/lib/http/client-ip";
