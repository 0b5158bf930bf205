import { boolean, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/**
 * Sending and receiving domains. Every organization has one row for the shared domain
 * (`isShared`, always `verified`, read-only); custom domains arrive with the messaging work.
 */
export const domains = pgTable(
  "domains",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    status: text({ enum: ["pending", "verified", "failed"] })
      .notNull()
      .default("pending"),
    isShared: boolean().notNull().default(false),
    /** DKIM selector and key pair (PEM). The shared domain signs with the deployment's key instead. */
    dkimSelector: text(),
    dkimPrivateKey: text(),
    dkimPublicKey: text(),
    /** Outcome of the last DNS check, per record purpose (`mx`, `spf`, `dkim`, `dmarc`). */
    recordStatus: jsonb().$type<Record<string, "pending" | "verified" | "failed">>(),
    lastCheckedAt: tstz(),
    createdAt: createdAt(),
    verifiedAt: tstz(),
  },
  (t) => [uniqueIndex("domains_org_name_key").on(t.orgId, t.name), index("domains_name_idx").on(t.name)],
);
