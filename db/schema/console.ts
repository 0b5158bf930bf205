import { index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, tstz } from "./_columns";
import { organizations, ROLES, users } from "./organizations";

/**
 * Console sign-in (Auth.js). The drizzle adapter reads these tables by their JavaScript keys, which
 * follow Auth.js's names; the columns are snake_case like everything else. Sessions are JWTs (the
 * credentials provider requires it), so `auth_sessions` stays empty unless the strategy changes.
 */
export const authAccounts = pgTable(
  "auth_accounts",
  {
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text().$type<"email" | "oauth" | "oidc" | "webauthn">().notNull(),
    provider: text().notNull(),
    providerAccountId: text().notNull(),
    refresh_token: text(),
    access_token: text(),
    expires_at: integer(),
    token_type: text(),
    scope: text(),
    id_token: text(),
    session_state: text(),
  },
  (t) => [
    primaryKey({ name: "auth_accounts_pkey", columns: [t.provider, t.providerAccountId] }),
    index("auth_accounts_user_idx").on(t.userId),
  ],
);

export const authSessions = pgTable("auth_sessions", {
  sessionToken: text().primaryKey(),
  userId: uuid()
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  expires: tstz().notNull(),
});

export const authVerificationTokens = pgTable(
  "auth_verification_tokens",
  {
    identifier: text().notNull(),
    token: text().notNull(),
    expires: tstz().notNull(),
  },
  (t) => [primaryKey({ name: "auth_verification_tokens_pkey", columns: [t.identifier, t.token] })],
);

/**
 * An invitation to join an organization. Only the SHA-256 of the accept token is stored; the token
 * itself travels in the invitation email. Accepting requires signing in as the invited address.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: id(),
    orgId: uuid()
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text().notNull(),
    role: text({ enum: ROLES }).notNull(),
    tokenHash: text().notNull(),
    invitedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    expiresAt: tstz().notNull(),
    acceptedAt: tstz(),
    acceptedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    revokedAt: tstz(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("invitations_token_key").on(t.tokenHash), index("invitations_org_idx").on(t.orgId, t.createdAt)],
);
