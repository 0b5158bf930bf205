import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isoDate, uuidParam } from "@/lib/core/schemas";

const tag = "Slack";
const contextMode = z
  .enum(["mentions", "ambient"])
  .describe("`mentions`: mentions and direct messages only; `ambient`: also the channels the app is in.");
const ambientMode = z
  .enum(["off", "store"])
  .describe("With `ambient`: `store` keeps channel messages as context, without `message.received`.");

export const slackAppSchema = z.object({
  id: z.uuid(),
  appId: z.string().describe("Slack's app id (`A0…`)."),
  clientId: z.string(),
  origin: z.enum(["managed", "byo"]),
  contextMode,
  name: z.string().nullable(),
  ambientMode,
  status: z.enum(["active", "deleted"]),
  createdAt: isoDate.optional().describe("Present on list reads."),
});

const secret = z.string().trim().min(1).max(256);
const common = {
  name: z.string().trim().min(1).max(120).nullable().optional(),
  contextMode: contextMode.optional(),
  ambientMode: ambientMode.optional(),
};
export const slackAppCreateSchema = z.discriminatedUnion("origin", [
  z.strictObject({ origin: z.literal("managed"), ...common }),
  z.strictObject({
    origin: z.literal("byo"),
    appId: z
      .string()
      .trim()
      .regex(/^A[A-Z0-9]{4,30}$/, "a Slack app id such as A0123ABCDEF"),
    clientId: z.string().trim().min(1).max(64),
    clientSecret: secret,
    signingSecret: secret,
    ...common,
  }),
]);

const params = z.strictObject({ appId: uuidParam.describe("The SlackApp's `id`.") });
const one = z.object({ app: slackAppSchema });

export const listSlackApps = defineContract({
  id: "listSlackApps",
  method: "GET",
  path: "/v1/slack/apps",
  access: "inboxes:read",
  tag,
  summary: "List Slack apps",
  response: z.object({ apps: z.array(slackAppSchema) }),
});

export const createSlackApp = defineContract({
  id: "createSlackApp",
  method: "POST",
  path: "/v1/slack/apps",
  access: "inboxes:write",
  tag,
  summary: "Add a Slack app",
  description:
    "`byo`: your own Slack app (its client and signing secrets are stored encrypted and never returned). `managed`: the operator's app (`SLACK_APP_ID`, `SLACK_CLIENT_ID`, `SLACK_CLIENT_SECRET`, `SLACK_SIGNING_SECRET`).",
  body: slackAppCreateSchema,
  example: {
    origin: "byo",
    appId: "A0123ABCDEF",
    clientId: "1234.5678",
    clientSecret: "client-secret",
    signingSecret: "signing-secret",
    name: "Support bot",
  },
  response: one,
});

export const getSlackApp = defineContract({
  id: "getSlackApp",
  method: "GET",
  path: "/v1/slack/apps/{appId}",
  access: "inboxes:read",
  tag,
  summary: "Get a Slack app",
  params,
  response: one,
});

export const deleteSlackApp = defineContract({
  id: "deleteSlackApp",
  method: "DELETE",
  path: "/v1/slack/apps/{appId}",
  access: "inboxes:write",
  tag,
  summary: "Delete a Slack app",
  description: "Its installations are disconnected; Slack events for it are no longer taken.",
  params,
  response: one,
});

export const setSlackAppAmbient = defineContract({
  id: "setSlackAppAmbient",
  method: "PATCH",
  path: "/v1/slack/apps/{appId}/ambient",
  access: "inboxes:write",
  tag,
  summary: "Set a Slack app's context mode",
  params,
  body: z.strictObject({ contextMode, ambientMode: ambientMode.optional() }),
  example: { contextMode: "ambient", ambientMode: "store" },
  response: z.object({
    appId: z.string().describe("Slack's app id (the SlackApp's `appId`)."),
    contextMode,
    ambientMode,
  }),
});

export const createSlackInstallUrl = defineContract({
  id: "createSlackInstallUrl",
  method: "POST",
  path: "/v1/slack/apps/{appId}/install-url",
  access: "inboxes:write",
  tag,
  summary: "Mint a Slack install URL",
  description:
    "Slack's OAuth v2 authorize URL for the app, with a single-use `state` (valid 10 minutes) naming the app and the inbox the installation binds to.",
  params,
  body: z.strictObject({ inboxId: z.uuid() }),
  example: { inboxId: "00000000-0000-7000-8000-000000000000" },
  response: z.object({ url: z.string(), expiresAt: isoDate }),
});

export const slackOauthCallback = defineContract({
  id: "slackOauthCallback",
  method: "GET",
  path: "/v1/providers/slack/oauth/callback",
  access: "public",
  tag,
  summary: "Slack OAuth v2 redirect",
  description:
    "Where Slack sends the installing user: exchanges `code` (`oauth.v2.access`), stores the installation (one per workspace or Enterprise Grid organization) as a connection of the inbox the `state` names. A forged, expired or used `state` is refused.",
  query: z.strictObject({
    code: z.string().min(1).max(512).optional(),
    state: z.string().min(1).max(512).optional(),
    error: z.string().max(200).optional(),
  }),
  idempotent: false,
  errors: ["not_permitted", "conflict", "provider_unavailable"],
  response: z.object({
    installation: z.object({
      appId: z.string(),
      teamId: z.string().nullable(),
      teamName: z.string().nullable(),
      enterpriseId: z.string().nullable(),
      inboxId: z.uuid(),
    }),
  }),
});

export const receiveSlackEvent = defineContract({
  id: "receiveSlackEvent",
  method: "POST",
  path: "/v1/providers/slack/events",
  access: "public",
  tag,
  summary: "Slack Events API",
  description:
    "Slack's event deliveries, verified by the v0 signature (`X-Slack-Signature` over the raw body and `X-Slack-Request-Timestamp`, 5 minutes) with an active app's signing secret; acknowledged at once and processed after. A retried event (`X-Slack-Retry-Num`) is stored once.",
  body: z.looseObject({ type: z.string() }),
  idempotent: false,
  example: { type: "url_verification", challenge: "challenge", token: "t" },
  errors: ["invalid_signature"],
  response: z.object({ ok: z.literal(true), challenge: z.string().optional() }),
});
