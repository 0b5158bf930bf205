import { sql } from "drizzle-orm";
import { type DbOrTx, getDbHandle } from "@/db";
import type { apiKeys } from "@/db/schema";
import { env } from "@/lib/env";

/**
 * Active API keys recently authenticated, by the SHA-256 of their secret, so a busy key does not
 * cost a database read on every request. An entry lives `API_KEY_CACHE_SECONDS` (0 turns the cache
 * off). A change to a key (scopes are immutable; name, IP allowlist, inbox restriction, revocation)
 * or the deletion of its organization clears this process's cache when it commits, and sends
 * `NOTIFY svc_api_keys`, which clears every other process's (PostgreSQL; PGlite has one process).
 * A process that is not yet listening does not cache. The TTL bounds anything else: a row changed
 * by hand in the database is honoured within `API_KEY_CACHE_SECONDS`.
 *
 * Kept on `globalThis`: Next.js bundles each route separately, and a revocation through the
 * console must clear the cache the `/v1` and `/mcp` routes read.
 */
type KeyRow = typeof apiKeys.$inferSelect;
interface Entry {
  row: KeyRow;
  until: number;
}
interface State {
  entries: Map<string, Entry>;
  listening: boolean;
  started?: Promise<void>;
}

export const API_KEYS_CHANNEL = "svc_api_keys";
const MAX_ENTRIES = 10_000;
const KEY = Symbol.for("svc.apiKeyCache");

function state(): State {
  const holder = globalThis as unknown as Record<symbol, State | undefined>;
  holder[KEY] ??= { entries: new Map(), listening: false };
  return holder[KEY];
}

function listen(s: State): void {
  s.started ??= getDbHandle()
    .then((h) => h.listen(API_KEYS_CHANNEL, () => s.entries.clear()))
    .then(() => {
      s.listening = true;
    })
    .catch(() => {
      s.started = undefined;
    });
}

/** The cached active key with this secret hash, or undefined (look it up). */
export function cachedKey(secretHash: string, now: number): KeyRow | undefined {
  if (env.API_KEY_CACHE_SECONDS === 0) return undefined;
  const s = state();
  const entry = s.entries.get(secretHash);
  if (!entry) return undefined;
  if (entry.until <= now) {
    s.entries.delete(secretHash);
    return undefined;
  }
  return entry.row;
}

/** Remembers an active key just read from the database (once this process hears changes). */
export function rememberKey(secretHash: string, row: KeyRow, now: number): void {
  if (env.API_KEY_CACHE_SECONDS === 0 || row.status !== "active") return;
  const s = state();
  listen(s);
  if (!s.listening) return;
  if (s.entries.size >= MAX_ENTRIES) s.entries.clear();
  s.entries.set(secretHash, { row, until: now + env.API_KEY_CACHE_SECONDS * 1000 });
}

/** Announces a change to API keys in the changing transaction: every process clears its cache when it commits. */
export async function announceKeyChange(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_notify(${API_KEYS_CHANNEL}, '')`);
}

/** Clears this process's cache (after a committed change). */
export function forgetKeys(): void {
  state().entries.clear();
}
