/** Moved to `lib/core/pagination.ts`; this path remains for modules not yet updated (lib/workflows/runs.ts). */
export * from "@/lib/core/pagination";
