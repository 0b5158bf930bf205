/**
 * Every function the app serves: the registry's `FUNCTIONS` (each domain's manifest lists its own).
 * This path remains for callers not yet updated; new code imports `FUNCTIONS` from `@/lib/registry`.
 */
export { FUNCTIONS as functions } from "@/lib/registry";
