import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, orgRef, tstz } from "./_columns";
import { inboxes } from "./messaging";
import { organizations } from "./organizations";

export const SLACK_APP_ORIGINS = ["managed", "byo"] as const;
export const SLACK_CONTEXT_MODES = ["mentions", "ambient"] as const;
export const SLACK_AMBIENT_MODES = ["off", "store"] as const;

/**
 * A Slack app an organization installs into workspaces: its own (`byo`: client secret and signing
 * secret sealed with lib/trust/secrets) or the operator's (`managed`: the secrets come from the
 * environment, none stored). Installations are inbox connections (`inbox_connections`, channel slack).
 */
export const slackApps = pgTable(
  "slack_apps",
  {
    id: id(),
    orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
    origin: text({ enum: SLACK_APP_ORIGINS }).notNull(),
    /** Slack's app id (`A0…`). */
    appId: text().notNull(),
    clientId: text().notNull(),
    name: text(),
    clientSecretCiphertext: text(),
    signingSecretCiphertext: text(),
    contextMode: text({ enum: SLACK_CONTEXT_MODES }).notNull().default("mentions"),
    ambientMode: text({ enum: SLACK_AMBIENT_MODES }).notNull().default("off"),
    status: text({ enum: ["active", "deleted"] })
      .notNull()
      .default("active"),
    createdAt: createdAt(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [index("slack_apps_org_idx").on(t.orgId, t.createdAt), index("slack_apps_app_id_idx").on(t.appId)],
);

/** An install URL's `state`: single use (`usedAt`), expiring, naming the app and the inbox it binds. */
export const slackOauthStates = pgTable("slack_oauth_states", {
  id: id(),
  orgId: orgRef().references(() => organizations.id, { onDelete: "cascade" }),
  slackAppId: uuid()
    .notNull()
    .references(() => slackApps.id, { onDelete: "cascade" }),
  inboxId: uuid()
    .notNull()
    .references(() => inboxes.id, { onDelete: "cascade" }),
  /** SHA-256 of the state's secret part (the URL carries `<id>.<secret>`). */
  secretHash: text().notNull(),
  expiresAt: tstz().notNull(),
  usedAt: tstz(),
  createdAt: createdAt(),
});

/** Events API deliveries taken (deduplicated by Slack's `event_id`), processed after the acknowledgement. */
export const slackEvents = pgTable(
  "slack_events",
  {
    id: id(),
    eventId: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    processedAt: tstz(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("slack_events_event_id_key").on(t.eventId)],
);
