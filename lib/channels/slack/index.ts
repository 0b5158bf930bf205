import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray } from "drizzle-orm";
import { type DbOrTx, getDb } from "@/db";
import { auditLogs, inboxConnections, slackApps } from "@/db/schema";
import { invalidRequest } from "@/lib/core/errors";
import { callSlack, slackClient } from "@/lib/providers/slack/client";
import { openSecret } from "@/lib/trust/secrets";
import { defineChannel, type InboundMessage } from "../port";
import { normalizeSlackId, slackDefinition } from "./definition";

/**
 * Slack: an inbox's Slack installations are its connections (address `<appId>:<team or
 * enterprise id>`, the bot token sealed in `secret_ciphertext`). A message's key in Slack's
 * conversation space is `<connection>/<channel>/<ts>`, so a Slack thread is one thread here: a
 * reply names its thread's first message. Installing and the Events API ingress live in lib/slack.
 */

/** The sealed credential of an installation: the bot token and the bot's own user id. */
export interface SlackInstallSecret {
  token: string;
  botUserId: string | null;
}
export const installSecretContext = (connectionAddress: string) => `slack_installation:${connectionAddress}`;

export async function openInstallSecret(
  sealed: string,
  connectionAddress: string,
  db?: DbOrTx,
): Promise<SlackInstallSecret> {
  const raw = await openSecret(db ?? (await getDb()), sealed, installSecretContext(connectionAddress));
  return JSON.parse(raw.toString("utf8")) as SlackInstallSecret;
}

/** A Slack message's conversation key. */
export const slackKey = (connection: string, channel: string, ts: string) => `${connection}/${channel}/${ts}`;
const parseKey = (key: string | null | undefined) => {
  const [connection, channel, ts] = (key ?? "").split("/");
  return connection && channel && ts ? { connection, channel, ts } : null;
};

interface SlackWire {
  connectionId: string;
  channel: string;
  text: string;
  thread_ts: string | null;
  blocks: unknown[] | null;
}

/** The Events API payload the ingress hands to `receive`, and where it arrived. */
export interface SlackInboundOrigin {
  connectionAddress: string;
  teamId: string | null;
  ambient: boolean;
}

export const slack = defineChannel({
  ...slackDefinition,
  address(raw) {
    const id = normalizeSlackId(raw);
    return id
      ? { ok: true, address: id }
      : {
          ok: false,
          message: `${raw} is not a Slack conversation id (C…, G…, D…) nor a user id (U…, W…, for a DM)`,
        };
  },
  validate(s) {
    if (s.recipients.length !== 1)
      throw invalidRequest("A Slack message goes to exactly one conversation or user.", "to");
  },
  messageKey: () => `slack/${randomUUID()}`,
  threadOptions: () => ({ inReplyTo: null, references: [] }),
  async compose(db, d) {
    const parent = parseKey(d.thread.references[0] ?? d.thread.inReplyTo);
    const rows = await db
      .select()
      .from(inboxConnections)
      .where(
        and(
          eq(inboxConnections.inboxId, d.from.inboxId),
          eq(inboxConnections.channel, "slack"),
          eq(inboxConnections.status, "active"),
        ),
      );
    if (rows.length === 0)
      throw invalidRequest(
        "The inbox has no Slack installation; install a Slack app for it first (POST /v1/slack/apps/{id}/install-url with this inboxId).",
        "channel",
      );
    // A reply goes out through the installation its thread came in on, never another workspace's.
    const connection = parent ? rows.find((r) => r.address === parent.connection) : rows[0];
    if (!connection) {
      const [appId, team] = (parent?.connection ?? "").split(":");
      throw invalidRequest(
        `The thread is in Slack workspace ${team} (app ${appId}), where this inbox has no active installation; install the app there again to reply.`,
        "replyToMessageId",
      );
    }
    const threadTs = typeof d.options.thread_ts === "string" ? d.options.thread_ts : parent ? parent.ts : null;
    const wire: SlackWire = {
      connectionId: connection.id,
      channel: d.to[0] ?? "",
      text: d.content.text ?? d.content.subject ?? "",
      thread_ts: threadTs,
      blocks: Array.isArray(d.options.blocks) ? d.options.blocks : null,
    };
    return Buffer.from(JSON.stringify(wire));
  },
  async deliver(wire) {
    const w = JSON.parse(wire.body.toString("utf8")) as SlackWire;
    const db = await getDb();
    const [connection] = await db.select().from(inboxConnections).where(eq(inboxConnections.id, w.connectionId));
    if (!connection?.secretCiphertext || connection.status !== "active")
      throw new Error("the Slack installation is gone");
    const { token } = await openInstallSecret(connection.secretCiphertext, connection.address);
    const res = await callSlack(() =>
      slackClient(token).chat.postMessage({
        channel: w.channel,
        text: w.text,
        ...(w.thread_ts ? { thread_ts: w.thread_ts } : {}),
        ...(w.blocks ? { blocks: w.blocks as never } : {}),
      }),
    );
    return {
      provider: "slack",
      providerMessageId: res.ts ?? null,
      metadata: {
        teamId: connection.address.split(":")[1] ?? null,
        channelId: typeof res.channel === "string" ? res.channel : w.channel,
        threadTs: w.thread_ts,
      },
      outcomes: [
        { kind: "delivered", recipient: w.channel, at: new Date(), providerType: "chat.postMessage", detail: {} },
      ],
    };
  },
  // Chosen by name only: a Slack id is never guessed from a recipient.
  byDefault: null,
  outboundMetadata: () => ({
    teamId: null,
    channelId: null,
    ts: null,
    threadTs: null,
    userId: null,
    ambient: false,
  }),
  copyMetadata: () => ({}),
  outcomeMetadata: (current, { receipt }) => ({
    ...(current ?? {}),
    ...(receipt?.metadata ?? {}),
    ...(receipt?.providerMessageId ? { ts: receipt.providerMessageId } : {}),
  }),
  unavailable: (recipient) => ({
    kind: "failed",
    recipient,
    at: new Date(),
    providerType: "unavailable",
    detail: {},
  }),
  providers: [],
  providerEvent: null,
  /** One Events API event (`raw`: its JSON) that the ingress verified, routed and deduplicated. */
  receive(_db, raw, origin) {
    const o = origin as unknown as SlackInboundOrigin;
    const e = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" ? v : null);
    const channel = str(e.channel) ?? "";
    const ts = str(e.ts) ?? "";
    const threadTs = str(e.thread_ts);
    const inThread = threadTs !== null && threadTs !== ts;
    const root = inThread ? slackKey(o.connectionAddress, channel, threadTs) : null;
    const message: InboundMessage = {
      channel: "slack",
      deliveredTo: [o.connectionAddress],
      from: { address: str(e.user) ?? str(e.bot_id) ?? "unknown", name: null },
      to: [channel],
      cc: [],
      replyTo: null,
      content: { subject: "", text: str(e.text), html: null, media: [] },
      thread: {
        messageKey: slackKey(o.connectionAddress, channel, ts),
        inReplyTo: root,
        references: root ? [root] : [],
      },
      metadata: {
        teamId: o.teamId,
        channelId: channel,
        ts,
        threadTs: inThread ? threadTs : null,
        userId: str(e.user),
        ambient: o.ambient,
      },
      silent: o.ambient,
    };
    return Promise.resolve([message]);
  },
  // An installation's words: the workspace's name Slack gave at install (its audit row) and the app's name.
  async describeConnections(db, orgId, connections) {
    const parts = connections.map((c) => {
      const at = c.address.indexOf(":");
      return { id: c.id, appId: c.address.slice(0, at), workspace: c.address.slice(at + 1) };
    });
    const appIds = [...new Set(parts.map((p) => p.appId))];
    const apps = appIds.length
      ? await db
          .select({ appId: slackApps.appId, name: slackApps.name })
          .from(slackApps)
          .where(and(eq(slackApps.orgId, orgId), inArray(slackApps.appId, appIds)))
      : [];
    const installs = await db
      .select({ metadata: auditLogs.metadata })
      .from(auditLogs)
      .where(and(eq(auditLogs.orgId, orgId), eq(auditLogs.action, "slack_app.installed")))
      .orderBy(desc(auditLogs.createdAt))
      .limit(500);
    const teamNames = new Map<string, string>();
    for (const r of installs) {
      const m = r.metadata ?? {};
      const workspace = typeof m.enterpriseId === "string" ? m.enterpriseId : m.teamId;
      if (typeof workspace === "string" && typeof m.teamName === "string" && !teamNames.has(workspace))
        teamNames.set(workspace, m.teamName);
    }
    return new Map(
      parts.map((p) => {
        const app = apps.find((a) => a.appId === p.appId);
        const team = teamNames.get(p.workspace);
        return [
          p.id,
          {
            name: team ? `${team} (${p.workspace})` : `workspace ${p.workspace}`,
            detail: `app ${app?.name ? `${app.name} (${p.appId})` : p.appId}`,
          },
        ];
      }),
    );
  },
});
