import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as keys from "./service";

export const listApiKeys = defineOperation(c.listApiKeys, ({ db, principal }) => keys.listApiKeys(db, principal));
export const createApiKey = defineOperation(c.createApiKey, ({ db, principal, body }) =>
  keys.createApiKey(db, principal, body),
);
export const getApiKey = defineOperation(c.getApiKey, ({ db, principal, params }) =>
  keys.getApiKey(db, principal, params.keyId),
);
export const updateApiKey = defineOperation(c.updateApiKey, ({ db, principal, params, body }) =>
  keys.updateApiKey(db, principal, params.keyId, body),
);
export const revokeApiKey = defineOperation(c.revokeApiKey, ({ db, principal, params }) =>
  keys.revokeApiKey(db, principal, params.keyId),
);
