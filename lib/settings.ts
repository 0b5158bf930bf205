import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { systemSettings } from "@/db/schema";

const cache = new Map<string, unknown>();

/**
 * A deployment-wide value generated once (the shared domain's DKIM key, the URL-signing secret):
 * the first caller in any process stores `make()`, everyone reads the stored value. Values never
 * change once stored, so each process keeps them in memory after the first read.
 */
export async function settingOnce<T>(db: DbOrTx, key: string, make: () => T): Promise<T> {
  if (cache.has(key)) return cache.get(key) as T;
  const read = async () => (await db.select().from(systemSettings).where(eq(systemSettings.key, key)))[0];
  let row = await read();
  if (!row) {
    await db.insert(systemSettings).values({ key, value: make() }).onConflictDoNothing();
    row = await read();
  }
  if (!row) throw new Error(`setting ${key} missing after insert`);
  cache.set(key, row.value);
  return row.value as T;
}

/** The deployment's secret for signed URLs (attachment downloads, storage uploads and downloads). */
export async function urlSigningSecret(db: DbOrTx): Promise<Buffer> {
  return Buffer.from(await settingOnce(db, "url_signing_secret", () => randomBytes(32).toString("hex")), "hex");
}

/** The deployment's key for opaque list cursors (AES-256-GCM; `lib/events/cursor.ts`). */
export async function cursorKey(db: DbOrTx): Promise<Buffer> {
  return Buffer.from(await settingOnce(db, "cursor_key", () => randomBytes(32).toString("hex")), "hex");
}
