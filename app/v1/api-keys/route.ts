import { handle, route } from "@/lib/api/kernel";
import { createApiKey, listApiKeys } from "@/lib/api-keys/service";
import * as c from "@/lib/contracts/api-keys";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listApiKeys, ({ db, principal }) => listApiKeys(db, principal)),
  handle(c.createApiKey, ({ db, principal, body }) => createApiKey(db, principal, body)),
);
