import { and, eq, isNotNull } from "drizzle-orm";
import { getDb } from "@/db";
import { phoneCalls } from "@/db/schema";
import { env } from "@/lib/env";
import { recordingSignatureValid } from "@/lib/phone/call-artifacts";
import { storage } from "@/lib/providers/storage";
import { userContentHeaders } from "@/lib/providers/storage/user-content";

const refuse = (status: number, message: string) =>
  new Response(message, {
    status,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-store",
    },
  });

/**
 * HTTP side of a call recording's signed URL (app/files/calls/[callId]/recording): the signature
 * over the call id and expiry is the credential; served from USER_CONTENT_ORIGIN when configured
 * (else 404, like attachments), always as a download.
 */
export async function serveSignedRecording(request: Request, callId: string): Promise<Response> {
  const url = new URL(request.url);
  if (
    env.USER_CONTENT_ORIGIN &&
    (request.headers.get("host") ?? url.host).toLowerCase() !== new URL(env.USER_CONTENT_ORIGIN).host
  )
    return refuse(404, `Recordings are served from ${env.USER_CONTENT_ORIGIN}, not from this origin.`);
  const db = await getDb();
  const ok =
    /^[0-9a-f-]{36}$/i.test(callId) &&
    (await recordingSignatureValid(db, callId, url.searchParams.get("expires"), url.searchParams.get("signature")));
  if (!ok) return refuse(403, "This link is invalid or has expired.");
  const [call] = await db
    .select({ key: phoneCalls.recordingKey, recording: phoneCalls.recording })
    .from(phoneCalls)
    .where(and(eq(phoneCalls.id, callId), isNotNull(phoneCalls.recordingKey)));
  const bytes = call?.key ? await storage().get(call.key) : null;
  if (!call || !bytes) return refuse(404, "This call has no recording.");
  const rec = (call.recording ?? {}) as { contentType?: string; filename?: string };
  const { headers } = userContentHeaders(rec.contentType ?? "audio/wav", rec.filename ?? "recording.wav", false);
  return new Response(Buffer.from(bytes), { headers });
}
