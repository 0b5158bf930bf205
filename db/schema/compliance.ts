import { integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";

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
