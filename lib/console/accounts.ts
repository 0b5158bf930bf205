/**
 * Console accounts live in the account domain (`lib/account/users.ts`, schemas in its
 * `contracts.ts`); this module keeps the path Auth.js's configuration (`auth.ts`) imports.
 */
export { clearUnprovenPassword, getUser, isFreshInstall, verifyCredentials } from "@/lib/account/users";
export { signInBody } from "@/lib/account/contracts";
