import { z } from "zod";
import { defineChannelDefinition } from "../definition";

/** The Slack channel's public `channelMetadata`: where the message is in Slack. */
export const slackMetadataSchema = z.object({
  teamId: z.string().nullable().describe("The workspace (or Enterprise Grid organization) of the installation."),
  channelId: z.string().nullable().describe("The Slack conversation (`C…`, `G…`, or `D…` for a direct message)."),
  ts: z.string().nullable().describe("The message's Slack timestamp (its id in the conversation); null until posted."),
  threadTs: z.string().nullable().describe("The Slack thread it belongs to (its first message's `ts`), or null."),
  userId: z.string().nullable().describe("The Slack user who wrote it (inbound), or null."),
  ambient: z.boolean().describe("Stored as channel context (ambient store) without `message.received`."),
});

/** A Slack conversation or user id (`C0123ABCD`, `D…`, `G…`, `U…`, `W…`). */
const slackId = /^[CDGUW][A-Z0-9]{6,20}$/;
export const normalizeSlackId = (value: string): string | null => {
  const v = value.trim().toUpperCase();
  return slackId.test(v) ? v : null;
};

export const slackDefinition = defineChannelDefinition({
  id: "slack",
  label: "Slack",
  metadata: slackMetadataSchema,
  inSendResponse: true,
  badge: "slack",
  options: z.object({
    thread_ts: z
      .string()
      .regex(/^\d{1,12}\.\d{1,8}$/, "a Slack timestamp such as 1700000000.000100")
      .optional()
      .describe("Slack: the thread to post in (its first message's `ts`); `replyToMessageId` sets it for you."),
    blocks: z
      .array(z.looseObject({ type: z.string().min(1).max(64) }))
      .min(1)
      .max(50)
      .optional()
      .describe("Slack: Block Kit blocks of the message (the text is the notification fallback)."),
  }),
  handleKinds: ["slack"],
  handle: {
    normalize: normalizeSlackId,
    hint: "Enter a Slack user or conversation id, e.g. U012ABCDEF.",
    example: "U012ABCDEF",
  },
  connection: {
    label: "Slack installations",
    none: "Not installed in any Slack workspace",
    connect: {
      kind: "install",
      operationId: "createSlackInstallUrl",
      appParam: "appId",
      appsOperationId: "listSlackApps",
      apps: (data) =>
        ((data as { apps?: { id: string; name: string | null; appId: string }[] }).apps ?? []).map((a) => ({
          id: a.id,
          label: a.name ? `${a.name} (${a.appId})` : a.appId,
        })),
      hint: "Send the link to an admin of the Slack workspace: installing the app there connects the workspace to this inbox. The link works once, for 10 minutes.",
      noApps:
        "This organization has no Slack app yet: add one with POST /v1/slack/apps, then mint an install link here.",
      disconnectNote:
        "To disconnect a workspace, delete its Slack app (DELETE /v1/slack/apps/{appId}) or remove the app in Slack.",
    },
  },
  present(m) {
    const facts: [string, string][] = [];
    const put = (label: string, v: unknown) => {
      if (typeof v === "string" && v !== "") facts.push([label, v]);
    };
    put("Workspace", m.teamId);
    put("Conversation", m.channelId);
    put("Slack user", m.userId);
    put("Message ts", m.ts);
    if (typeof m.threadTs === "string" && m.threadTs !== "")
      facts.push(["Thread", m.threadTs === m.ts ? `starts thread ${m.threadTs}` : `reply in thread ${m.threadTs}`]);
    if (m.ambient === true) facts.push(["Stored as", "channel context (ambient), no message.received"]);
    return { facts, buttons: [] };
  },
});
