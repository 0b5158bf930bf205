import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/events";
import { readEvents } from "@/lib/events/stream";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.listEvents, ({ db, principal, query }) => readEvents(db, principal, query)));
