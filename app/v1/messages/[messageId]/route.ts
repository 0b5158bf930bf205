import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/messages";
import { getMessage } from "@/lib/messages/read";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.getMessage, ({ db, principal, params }) => getMessage(db, principal, params.messageId)));
