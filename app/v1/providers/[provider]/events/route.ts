import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/providers";
import { receiveProviderEvent } from "@/lib/messages/provider-events";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.receiveProviderEvent, ({ db, params, body }) => receiveProviderEvent(db, params.provider, body)),
);
