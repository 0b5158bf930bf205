import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { listThreads } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.listThreads, ({ db, principal, query }) => listThreads(db, principal, query)));
