/** The database handle for console entry points outside a signed-in page (sign-up, invitations). */
export { getDb } from "@/db";
