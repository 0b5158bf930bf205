import { handle, route } from "@/lib/api/kernel";
import { getApiKey, updateApiKey } from "@/lib/api-keys/service";
import * as c from "@/lib/contracts/api-keys";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getApiKey, ({ db, principal, params }) => getApiKey(db, principal, params.keyId)),
  handle(c.updateApiKey, ({ db, principal, params, body }) => updateApiKey(db, principal, params.keyId, body)),
);
