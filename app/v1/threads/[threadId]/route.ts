import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { getThread } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.getThread, ({ db, principal, params }) => getThread(db, principal, params.threadId)));
