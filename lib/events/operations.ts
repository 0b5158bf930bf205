import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import { replayEvents as replay } from "./replay";
import { readEvents } from "./stream";

export const listEvents = defineOperation(c.listEvents, ({ db, principal, query }) => readEvents(db, principal, query));
export const replayEvents = defineOperation(c.replayEvents, ({ db, principal, body }) => replay(db, principal, body), {
  audit: { none: "data plane: re-sends existing events; each delivery is logged" },
});
