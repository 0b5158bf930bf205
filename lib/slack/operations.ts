import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import { receiveSlackEvent as receive } from "./events";
import { completeSlackInstall } from "./oauth";
import * as slack from "./service";

export const listSlackApps = defineOperation(c.listSlackApps, ({ db, principal }) =>
  slack.listSlackApps(db, principal),
);
export const createSlackApp = defineOperation(c.createSlackApp, ({ db, principal, body }) =>
  slack.createSlackApp(db, principal, body),
);
export const getSlackApp = defineOperation(c.getSlackApp, ({ db, principal, params }) =>
  slack.getSlackApp(db, principal, params.appId),
);
export const deleteSlackApp = defineOperation(c.deleteSlackApp, ({ db, principal, params }) =>
  slack.deleteSlackApp(db, principal, params.appId),
);
export const setSlackAppAmbient = defineOperation(c.setSlackAppAmbient, ({ db, principal, params, body }) =>
  slack.setSlackAppAmbient(db, principal, params.appId, body),
);
export const createSlackInstallUrl = defineOperation(c.createSlackInstallUrl, ({ db, principal, params, body }) =>
  slack.createSlackInstallUrl(db, principal, params.appId, body.inboxId),
);

/** Slack's OAuth redirect (public: the single-use `state` is the credential). */
export const slackOauthCallback = defineOperation(
  c.slackOauthCallback,
  ({ db, query, audit }) => completeSlackInstall(db, query, audit),
  { surfaces: { http: true, mcp: false, cli: false } },
);

/** Slack's Events API (public: the v0 signature is the credential). */
export const receiveSlackEvent = defineOperation(
  c.receiveSlackEvent,
  ({ db, body, request }) => receive(db, body, request),
  {
    audit: { none: "inbound Slack events, recorded as messages and on the event ledger" },
    surfaces: { http: true, mcp: false, cli: false },
  },
);
