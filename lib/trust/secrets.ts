import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { eq, is } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { DbOrTx } from "@/db";
import { systemSettings } from "@/db/schema";
import { decodeKey, env } from "@/lib/env";

/**
 * Secrets at rest (private signing keys): AES-256-GCM envelope encryption. Each secret gets its own
 * random 256-bit data key; the data key is encrypted ("wrapped") with the deployment's
 * key-encryption key (KEK) and stored beside the ciphertext, so changing the KEK re-wraps 32-byte
 * data keys and never touches the secrets themselves.
 *
 * The KEK is `SECRETS_KEY` (32 bytes, hex or base64). Unset, one is generated on first use and kept
 * in `system_settings` (`secrets_kek`): zero setup, every process on the database agrees, but a copy
 * of the database alone then opens every secret — set SECRETS_KEY in production so that the
 * database and the key live apart. A sealed value names its KEK by id (a fingerprint, never the
 * key), and any known KEK opens it: the active one, `SECRETS_KEY_PREVIOUS`, and a generated one that
 * was used before SECRETS_KEY was set, so switching to SECRETS_KEY strands nothing; `rewrapSecret`
 * moves a value under the active KEK.
 *
 * Format (one string, dot-separated, base64url parts):
 *   `v1.<kekId>.<wrappedKey>.<payload>`, `wrappedKey` = iv(12) ‖ AES-GCM(KEK, dataKey) ‖ tag(16),
 *   `payload` = iv(12) ‖ AES-GCM(dataKey, plaintext) ‖ tag(16).
 * Both encryptions authenticate the caller's `context` (e.g. `signing_key:<kid>`), so a ciphertext
 * copied onto another row does not open there.
 */

const SETTING = "secrets_kek";
const IV = 12;
const TAG = 16;

export interface Kek {
  /** Fingerprint: the first 16 hex digits of SHA-256("svc-kek" ‖ key). Safe to store and log. */
  id: string;
  key: Buffer;
}

export const kekId = (key: Buffer): string =>
  createHash("sha256").update("svc-kek").update(key).digest("hex").slice(0, 16);
const kek = (key: Buffer): Kek => ({ id: kekId(key), key });

export class SecretError extends Error {}

interface Keyring {
  active: Kek;
  byId: Map<string, Kek>;
}

let cached: Keyring | undefined;

async function storedKek(db: DbOrTx, create: boolean): Promise<Buffer | null> {
  const read = async () =>
    (await db.select({ value: systemSettings.value }).from(systemSettings).where(eq(systemSettings.key, SETTING)))[0];
  let row = await read();
  if (!row && create) {
    await db
      .insert(systemSettings)
      .values({ key: SETTING, value: randomBytes(32).toString("hex") })
      .onConflictDoNothing();
    row = await read();
  }
  return typeof row?.value === "string" ? Buffer.from(row.value, "hex") : null;
}

/**
 * The keyring: the active KEK and every KEK that opens something. Kept in memory once it is
 * certain to be durable: with SECRETS_KEY always; with a generated KEK only when it was read or
 * made outside a transaction (one made inside a transaction that then rolls back must not be used
 * for anything that commits later, or those secrets would be sealed under a key nobody kept).
 */
export async function keyring(db: DbOrTx): Promise<Keyring> {
  if (cached) return cached;
  const configured = env.SECRETS_KEY ? decodeKey(env.SECRETS_KEY) : null;
  const previous = env.SECRETS_KEY_PREVIOUS ? decodeKey(env.SECRETS_KEY_PREVIOUS) : null;
  const generated = await storedKek(db, !configured);
  const activeKey = configured ?? generated;
  if (!activeKey) throw new Error("no key-encryption key");
  const active = kek(activeKey);
  const byId = new Map<string, Kek>();
  for (const k of [previous, generated, active.key]) if (k) byId.set(kekId(k), kek(k));
  const ring = { active, byId };
  if (configured || !is(db, PgTransaction)) cached = ring;
  return ring;
}

/** Tests: forget the keyring (after changing the environment). */
export function resetKeyringForTests(): void {
  cached = undefined;
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function decrypt(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < IV + TAG) throw new SecretError("sealed value is truncated");
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, IV));
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(IV, sealed.length - TAG)), decipher.final()]);
  } catch {
    throw new SecretError("sealed value does not authenticate (wrong key, wrong context or tampered)");
  }
}

const wrapAad = (kid: string, context: string) => `svc-dek:v1:${kid}:${context}`;

/** Seals `plaintext` under the active KEK, bound to `context`. */
export function sealWith(k: Kek, plaintext: string | Buffer, context: string): string {
  const dataKey = randomBytes(32);
  const wrapped = encrypt(k.key, dataKey, wrapAad(k.id, context));
  const payload = encrypt(dataKey, Buffer.isBuffer(plaintext) ? plaintext : Buffer.from(plaintext, "utf8"), context);
  dataKey.fill(0);
  return ["v1", k.id, wrapped.toString("base64url"), payload.toString("base64url")].join(".");
}

function parse(sealed: string): { kekId: string; wrapped: Buffer; payload: Buffer } {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== "v1") throw new SecretError("not a sealed value (v1)");
  return {
    kekId: parts[1] ?? "",
    wrapped: Buffer.from(parts[2] ?? "", "base64url"),
    payload: Buffer.from(parts[3] ?? "", "base64url"),
  };
}

/** Opens a sealed value with whichever known KEK it names. */
export function openWith(byId: Map<string, Kek>, sealed: string, context: string): Buffer {
  const p = parse(sealed);
  const k = byId.get(p.kekId);
  if (!k)
    throw new SecretError(
      `sealed under key-encryption key ${p.kekId}, which this deployment does not have (SECRETS_KEY / SECRETS_KEY_PREVIOUS)`,
    );
  const dataKey = decrypt(k.key, p.wrapped, wrapAad(k.id, context));
  try {
    return decrypt(dataKey, p.payload, context);
  } finally {
    dataKey.fill(0);
  }
}

export async function sealSecret(db: DbOrTx, plaintext: string | Buffer, context: string): Promise<string> {
  return sealWith((await keyring(db)).active, plaintext, context);
}

export async function openSecret(db: DbOrTx, sealed: string, context: string): Promise<Buffer> {
  return openWith((await keyring(db)).byId, sealed, context);
}

/** The id of the KEK a sealed value is under. */
export const sealedKekId = (sealed: string): string => parse(sealed).kekId;

/**
 * The same secret re-wrapped under the active KEK (its data key re-encrypted; the payload is kept
 * as it is), or the value unchanged when it already is.
 */
export async function rewrapSecret(db: DbOrTx, sealed: string, context: string): Promise<string> {
  const { active, byId } = await keyring(db);
  const p = parse(sealed);
  if (p.kekId === active.id) return sealed;
  const k = byId.get(p.kekId);
  if (!k) throw new SecretError(`sealed under key-encryption key ${p.kekId}, which this deployment does not have`);
  const dataKey = decrypt(k.key, p.wrapped, wrapAad(k.id, context));
  try {
    return [
      "v1",
      active.id,
      encrypt(active.key, dataKey, wrapAad(active.id, context)).toString("base64url"),
      parts(sealed)[3],
    ].join(".");
  } finally {
    dataKey.fill(0);
  }
}

const parts = (s: string) => s.split(".");
