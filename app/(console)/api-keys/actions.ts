"use server";

import { createApiKey, revokeApiKey } from "@/lib/api-keys/service";
import { consoleAction } from "@/lib/console/action";
import * as contracts from "@/lib/contracts/api-keys";

/** Creates a key; the result carries its secret, which is never returned again. */
export async function createKeyAction(input: unknown) {
  return consoleAction("keys:write", contracts.createApiKey.body, input, (ctx, body) => createApiKey(ctx.db, ctx.principal, body));
}

/** Revokes a key immediately and for good. */
export async function revokeKeyAction(input: unknown) {
  return consoleAction("keys:write", contracts.revokeApiKey.params, input, (ctx, { keyId }) => revokeApiKey(ctx.db, ctx.principal, keyId));
}
