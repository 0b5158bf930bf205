import { bigint, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { organizations } from "./organizations";

/** One subprocessor as published in `GET /v1/compliance/residency`. */
export interface Subprocessor {
  name: string;
  purpose: string;
  /** Where it processes data (a region or country code; `unknown` when the configuration does not say). */
  location: string;
  /** ISO 3166 country of the company's parent (CLOUD Act exposure when `US`); null when unknown. */
  jurisdiction: string | null;
  url: string | null;
  /** `configuration` (derived from this deployment's settings) or `declared` (SUBPROCESSORS). */
  source: "configuration" | "declared";
}

/**
 * Every version of the deployment's subprocessor list (deployment-wide, not per organization). A
 * new row is written only when the list derived from the configuration differs from the latest
 * one (`hash`: SHA-256 of its JCS form), with the next version: versions only increase, even when
 * a list comes back to an earlier one.
 */
export const subprocessorLists = pgTable("subprocessor_lists", {
  version: integer().primaryKey(),
  hash: text().notNull(),
  subprocessors: jsonb().$type<Subprocessor[]>().notNull(),
  createdAt: createdAt(),
});

/**
 * Erasure and purge jobs (durable: the compliance-job workflow runs them step by step). While a job
 * runs, `subject` names what to erase; when it completes the address is replaced by its SHA-256,
 * so the job row keeps nothing of the subject, and `certificate` holds the signed deletion
 * certificate.
 */
export const complianceJobs = pgTable(
  "compliance_jobs",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    kind: text({ enum: ["erasure", "purge"] }).notNull(),
    status: text({ enum: ["pending", "running", "completed", "failed"] })
      .notNull()
      .default("pending"),
    subject: jsonb().$type<ComplianceSubject>().notNull(),
    counts: jsonb().$type<Record<string, number>>().notNull().default({}),
    /** Audit rows removed so far: their positions (the certificate lists them, the verifier links across). */
    erasedAuditRows: jsonb().$type<{ chainSeq: number; prevHash: string; rowHash: string }[]>().notNull().default([]),
    requestedChainSeq: bigint({ mode: "number" }),
    certificate: jsonb().$type<Record<string, unknown>>(),
    error: text(),
    requestedBy: text().notNull(),
    createdAt: createdAt(),
    completedAt: tstz(),
  },
  (t) => [index("compliance_jobs_org_created_idx").on(t.orgId, t.createdAt)],
);

export interface ComplianceSubject {
  /** Erasure by address (lowercase) while the job runs; null once it completed. */
  address?: string | null;
  /** Hex SHA-256 of the lowercase address(es), joined by newline, kept after completion. */
  addressSha256?: string | null;
  contactId?: string | null;
  inboxId?: string | null;
  /** The addresses a contact erasure covers, while it runs. */
  addresses?: string[] | null;
}
