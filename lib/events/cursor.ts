import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { DbOrTx } from "@/db";
import { invalidRequest } from "@/lib/core/errors";
import { cursorKey } from "@/lib/settings";

/**
 * Event-stream cursors are opaque (issue 10, item 16). The position they stand for is the ledger's
 * global append order, which would tell every organization the platform's event volume, so it
 * leaves encrypted: AES-256-GCM under the deployment's cursor key (`cursor_key` in
 * `system_settings`), with the organization as associated data. A cursor reveals nothing, cannot be
 * forged or altered, and does not open in another organization: all of those are 400.
 *
 * Layout (base64url): version(1) ‖ iv(12) ‖ AES-GCM(position as 8 bytes) ‖ tag(16).
 */
const VERSION = 1;
const IV = 12;
const TAG = 16;
const LENGTH = 1 + IV + 8 + TAG;

const aad = (orgId: string) => Buffer.from(`svc-event-cursor:v${VERSION}:${orgId}`, "utf8");

export async function encodeEventCursor(db: DbOrTx, orgId: string, position: number): Promise<string> {
  const iv = randomBytes(IV);
  const cipher = createCipheriv("aes-256-gcm", await cursorKey(db), iv);
  cipher.setAAD(aad(orgId));
  const plain = Buffer.alloc(8);
  plain.writeBigUInt64BE(BigInt(position));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, body, cipher.getAuthTag()]).toString("base64url");
}

/** The position a cursor of this organization stands for; 400 naming `param` for anything else. */
export async function decodeEventCursor(db: DbOrTx, orgId: string, cursor: string, param: string): Promise<number> {
  const invalid = () =>
    invalidRequest(
      "The cursor is not valid; pass a nextCursor value from a previous page of this organization's stream.",
      param,
    );
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  const raw = Buffer.from(cursor, "base64url");
  if (raw.length !== LENGTH || raw[0] !== VERSION) throw invalid();
  const decipher = createDecipheriv("aes-256-gcm", await cursorKey(db), raw.subarray(1, 1 + IV));
  decipher.setAAD(aad(orgId));
  decipher.setAuthTag(raw.subarray(LENGTH - TAG));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(raw.subarray(1 + IV, LENGTH - TAG)), decipher.final()]);
  } catch {
    throw invalid();
  }
  const position = plain.readBigUInt64BE();
  if (position > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid();
  return Number(position);
}
