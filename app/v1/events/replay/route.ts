import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { replayEvents } from "@/lib/events/replay";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.replayEvents, ({ db, principal, body }) => replayEvents(db, principal, body)));
