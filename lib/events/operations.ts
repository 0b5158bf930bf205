import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import { replayEvents as replay } from "./replay";
import { readEvents, waitForNextEvent } from "./stream";

export const listEvents = defineOperation(c.listEvents, ({ db, principal, query }) => readEvents(db, principal, query));
export const replayEvents = defineOperation(c.replayEvents, ({ db, principal, body }) => replay(db, principal, body), {
  audit: { none: "data plane: re-sends existing events; each delivery is logged" },
});

/** The agent's "wait for mail" (MCP tool `wait_for_message`); HTTP callers long-poll `GET /v1/events` instead. */
export const waitForMessage = defineOperation(
  c.waitForMessage,
  ({ db, principal, query, signal }) =>
    waitForNextEvent(db, principal, {
      type: "message.received",
      inboxId: query.inboxId,
      since: query.since,
      timeoutSeconds: query.timeoutSeconds,
      signal,
    }),
  { surfaces: { http: false, mcp: true, cli: false } },
);
