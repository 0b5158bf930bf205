import { createHmac, timingSafeEqual } from "node:crypto";
import { inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { phoneCalls } from "@/db/schema";
import { userContentBaseUrl } from "@/lib/env";
import type { StorageOwner } from "@/lib/providers/storage/sweep";
import { urlSigningSecret } from "@/lib/settings";

/**
 * Where a completed call's artifacts live: its recording under `calls/<org>/<call>` in storage,
 * served by short-lived signed URLs, and owned for the storage sweep while a call names it. The
 * transcript, summary and recording themselves come from the voice agent
 * (`lib/providers/telephony/voice-agent.ts`).
 */

export type { CallSummary, Recording, Turn } from "@/lib/providers/telephony/voice-agent";

export const recordingKey = (orgId: string, callId: string) => `calls/${orgId}/${callId}`;

const RECORDING_URL_SECONDS = 3600;

const signature = (secret: Buffer, callId: string, expires: number) =>
  createHmac("sha256", secret).update(`call-recording:${callId}:${expires}`).digest("base64url");

/** A short-lived signed download URL of the call's recording (no API key). */
export async function recordingUrl(db: DbOrTx, callId: string, now = Date.now()) {
  const expires = Math.floor(now / 1000) + RECORDING_URL_SECONDS;
  const url = new URL(`${userContentBaseUrl()}/files/calls/${callId}/recording`);
  url.searchParams.set("expires", String(expires));
  url.searchParams.set("signature", signature(await urlSigningSecret(db), callId, expires));
  return { url: url.toString(), expiresAt: new Date(expires * 1000).toISOString() };
}

/** Whether the signed URL's `expires` and `signature` are this call's and still valid. */
export async function recordingSignatureValid(
  db: DbOrTx,
  callId: string,
  expires: string | null,
  sig: string | null,
): Promise<boolean> {
  const exp = Number(expires);
  if (!sig || !Number.isInteger(exp) || exp < Date.now() / 1000) return false;
  const expected = Buffer.from(signature(await urlSigningSecret(db), callId, exp));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** For the storage sweep: call recordings live at `calls/<orgId>/<callId>`, owned while the call names them. */
export function callRecordingStorageOwner(db: DbOrTx): StorageOwner {
  return {
    prefix: "calls/",
    async owned(keys) {
      if (keys.length === 0) return new Set();
      const rows = await db
        .select({ key: phoneCalls.recordingKey })
        .from(phoneCalls)
        .where(inArray(phoneCalls.recordingKey, keys));
      return new Set(rows.map((r) => r.key ?? ""));
    },
  };
}
