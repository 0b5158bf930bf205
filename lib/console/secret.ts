import { randomBytes } from "node:crypto";
import type { DbOrTx } from "@/db";
import { env } from "@/lib/env";
import { settingOnce } from "@/lib/settings";

/**
 * The secret that encrypts console session cookies: AUTH_SECRET, else one generated on first start
 * and kept in system settings (so every process on one database agrees, with zero setup).
 */
export async function authSecret(db: DbOrTx): Promise<string> {
  return env.AUTH_SECRET ?? (await settingOnce(db, "auth_secret", () => randomBytes(32).toString("base64url")));
}
