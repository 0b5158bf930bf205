import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, tstz } from "./_columns";
import { organizations } from "./organizations";

/** The public half of an Ed25519 key as published in the JWKS. */
export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

/**
 * Ed25519 signing keys: the service's own artifact-signing key (`purpose` `service`, no
 * organization) and one key per agent passport (`purpose` `agent`). The private key is kept only
 * encrypted (`lib/trust/secrets.ts` envelope); `kid` is the RFC 7638 thumbprint of the public key.
 */
export const signingKeys = pgTable(
  "signing_keys",
  {
    id: id(),
    kid: text().notNull(),
    purpose: text({ enum: ["service", "agent"] }).notNull(),
    /** Owning organization (agent keys); null for the service key. */
    orgId: uuid().references(() => organizations.id, { onDelete: "cascade" }),
    /** The agent passport (`agt_…`) for agent keys. */
    agentId: text(),
    publicJwk: jsonb().$type<PublicJwk>().notNull(),
    /** Envelope-encrypted private JWK (see lib/trust/secrets.ts). */
    privateKeyEnc: text().notNull(),
    /** `active` keys sign and are published; `retired` keys still verify; `revoked` keys do neither. */
    status: text({ enum: ["active", "retired", "revoked"] })
      .notNull()
      .default("active"),
    createdAt: createdAt(),
    retiredAt: tstz(),
  },
  (t) => [
    uniqueIndex("signing_keys_kid_key").on(t.kid),
    index("signing_keys_agent_idx").on(t.agentId),
    index("signing_keys_org_idx").on(t.orgId),
    // At most one active service key: concurrent first uses agree on one.
    uniqueIndex("signing_keys_one_active_service_key")
      .on(t.purpose)
      .where(sql`purpose = 'service' and status = 'active'`),
  ],
);
