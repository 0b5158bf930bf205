"use server";

import { createApiKey, revokeApiKey } from "@/lib/api-keys/operations";
import { runAction } from "@/lib/console/action";

/** Creates a key; the result carries its secret, which is never returned again. */
export async function createKeyAction(input: unknown) {
  return runAction(createApiKey, input);
}

/** Revokes a key immediately and for good. */
export async function revokeKeyAction(input: unknown) {
  return runAction(revokeApiKey, input);
}
