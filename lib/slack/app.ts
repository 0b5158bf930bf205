import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { slackApps } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { openSecret } from "@/lib/trust/secrets";

export type SlackAppRow = typeof slackApps.$inferSelect;

/** The public SlackApp (secrets never; `createdAt` on list reads only, as the spec says). */
export const toSlackApp = (r: SlackAppRow, list = false) => ({
  id: r.id,
  appId: r.appId,
  clientId: r.clientId,
  origin: r.origin,
  contextMode: r.contextMode,
  name: r.name,
  ambientMode: r.ambientMode,
  status: r.status,
  ...(list ? { createdAt: r.createdAt.toISOString() } : {}),
});

export const secretContext = (appRowId: string, which: "client" | "signing") => `slack_app:${appRowId}:${which}`;

/** The operator's app for `managed` Slack apps, or a 400 saying what to set. */
export function managedApp() {
  const { SLACK_APP_ID: appId, SLACK_CLIENT_ID: clientId } = env;
  const { SLACK_CLIENT_SECRET: clientSecret, SLACK_SIGNING_SECRET: signingSecret } = env;
  if (!appId || !clientId || !clientSecret || !signingSecret)
    throw invalidRequest(
      "This deployment has no managed Slack app: the operator must set SLACK_APP_ID, SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_SIGNING_SECRET (or create a `byo` app with your own).",
      "origin",
    );
  return { appId, clientId, clientSecret, signingSecret };
}

/** The app's client and signing secrets (`byo`: opened; `managed`: the environment's). */
export async function appSecrets(db: DbOrTx, r: SlackAppRow): Promise<{ clientSecret: string; signingSecret: string }> {
  if (r.origin === "managed") return managedApp();
  if (!r.clientSecretCiphertext || !r.signingSecretCiphertext) throw new Error("byo Slack app without secrets");
  return {
    clientSecret: (await openSecret(db, r.clientSecretCiphertext, secretContext(r.id, "client"))).toString("utf8"),
    signingSecret: (await openSecret(db, r.signingSecretCiphertext, secretContext(r.id, "signing"))).toString("utf8"),
  };
}

/** The organization's active app with this id, or 404. */
export async function findSlackApp(db: DbOrTx, principal: Principal, id: string, lock = false): Promise<SlackAppRow> {
  const q = db
    .select()
    .from(slackApps)
    .where(and(eq(slackApps.orgId, principal.orgId), eq(slackApps.id, id), eq(slackApps.status, "active")));
  const [row] = lock ? await q.for("update") : await q;
  if (!row) throw notFound("Slack app", "appId");
  return row;
}
