/** Moved to `lib/http/client-ip.ts`; this path remains for modules not yet updated (server.ts). */
export * from "@/lib/http/client-ip";
