import { timingSafeEqual } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { inboxConnections, slackApps, slackOauthStates } from "@/db/schema";
import { installSecretContext, type SlackInstallSecret } from "@/lib/channels/slack";
import type { AuditEntry } from "@/lib/core/audit";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import { addConnection } from "@/lib/inboxes/connections";
import { callSlack, slackClient, slackRefusal } from "@/lib/providers/slack/client";
import { sealSecret } from "@/lib/trust/secrets";
import { appSecrets } from "./app";
import { hashState, oauthRedirectUri } from "./service";

type Audit = (tx: DbOrTx, entry: AuditEntry) => Promise<void>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const refused = () =>
  invalidRequest(
    "The install link is not valid: it was forged, has expired or was used already. Mint a new one.",
    "state",
  );

/**
 * The OAuth v2 redirect: claims the `state` (single use: the claim is one conditional update, so two
 * redirects with one state cannot both pass), exchanges the code with `oauth.v2.access`, and stores
 * the installation as a Slack connection of the inbox the state names (`<appId>:<enterprise or team
 * id>`, the bot token sealed). A reinstall in the same organization updates it; another
 * organization's installation of the same workspace is 409.
 */
export async function completeSlackInstall(
  db: Db,
  query: { code?: string; state?: string; error?: string },
  audit: Audit,
) {
  if (query.error) throw invalidRequest(`Slack did not authorize the install: ${query.error}.`, "error");
  const [id, secret] = (query.state ?? "").split(".");
  if (!id || !secret || !UUID.test(id)) throw refused();
  if (!query.code) throw invalidRequest("The redirect carries no `code`.", "code");
  const [state] = await db
    .update(slackOauthStates)
    .set({ usedAt: new Date() })
    .where(
      and(eq(slackOauthStates.id, id), isNull(slackOauthStates.usedAt), gt(slackOauthStates.expiresAt, new Date())),
    )
    .returning();
  const expected = Buffer.from(state?.secretHash ?? "0".repeat(64));
  if (!state || !timingSafeEqual(expected, Buffer.from(hashState(secret)))) throw refused();
  const [app] = await db
    .select()
    .from(slackApps)
    .where(and(eq(slackApps.id, state.slackAppId), eq(slackApps.status, "active")));
  if (!app) throw refused();
  const { clientSecret } = await appSecrets(db, app);
  const res = await callSlack(() =>
    slackClient().oauth.v2.access({
      client_id: app.clientId,
      client_secret: clientSecret,
      code: query.code ?? "",
      redirect_uri: oauthRedirectUri(),
    }),
  ).catch((err: unknown) => {
    const refusal = slackRefusal(err);
    if (refusal) throw invalidRequest(`Slack refused the code (${refusal}).`, "code");
    throw err;
  });
  if (!res.access_token) throw new ApiError("provider_unavailable", "Slack answered without a bot token.");
  const enterpriseId = res.is_enterprise_install ? (res.enterprise?.id ?? null) : null;
  const teamId = res.team?.id ?? null;
  const workspace = enterpriseId ?? teamId;
  if (!workspace) throw new ApiError("provider_unavailable", "Slack answered without a workspace.");
  const address = `${app.appId}:${workspace}`;
  const sealed = await sealSecret(
    db,
    JSON.stringify({ token: res.access_token, botUserId: res.bot_user_id ?? null } satisfies SlackInstallSecret),
    installSecretContext(address),
  );
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(inboxConnections)
      .where(and(eq(inboxConnections.channel, "slack"), eq(inboxConnections.address, address)))
      .for("update");
    if (existing && existing.orgId !== state.orgId)
      throw new ApiError("conflict", "This Slack workspace is installed for another organization.");
    if (existing)
      await tx
        .update(inboxConnections)
        .set({ inboxId: state.inboxId, secretCiphertext: sealed, status: "active", updatedAt: new Date() })
        .where(eq(inboxConnections.id, existing.id));
    else await addConnection(tx, { id: state.inboxId, orgId: state.orgId }, "slack", address, sealed);
    await audit(tx, {
      orgId: state.orgId,
      action: "slack_app.installed",
      resourceType: "slack_app",
      resourceId: app.id,
      // The workspace's name too: the console names the installation by it.
      metadata: { inboxId: state.inboxId, teamId, teamName: res.team?.name ?? null, enterpriseId },
    });
    return {
      installation: {
        appId: app.appId,
        teamId,
        teamName: res.team?.name ?? null,
        enterpriseId,
        inboxId: state.inboxId,
      },
    };
  });
}
