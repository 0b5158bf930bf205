import { handle, route } from "@/lib/api/kernel";
import { revokeApiKey } from "@/lib/api-keys/service";
import * as c from "@/lib/contracts/api-keys";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.revokeApiKey, ({ db, principal, params }) => revokeApiKey(db, principal, params.keyId)),
);
