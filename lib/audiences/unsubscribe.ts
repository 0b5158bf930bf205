import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { audienceMembers, audiences } from "@/db/schema";
import { publicBaseUrl } from "@/lib/env";
import { urlSigningSecret } from "@/lib/settings";
import { isUuid } from "@/lib/core/schemas";

/**
 * One-click unsubscribe (RFC 8058) for broadcast messages: each member's message carries
 * `List-Unsubscribe: <{PUBLIC_BASE_URL}/u/{token}>` and `List-Unsubscribe-Post:
 * List-Unsubscribe=One-Click` (both DKIM-signed, lib/channels/email/mime.ts). The token is the member's
 * id and an HMAC of it under the deployment's URL-signing secret, so it cannot be forged or
 * pointed at another member. A POST to the link unsubscribes at once (what mail clients send); a
 * GET shows a page with a button (link scanners fetch with GET and must not unsubscribe anyone).
 */
const TOKEN_VERSION = "u1";

export type UnsubscribeSigner = (memberId: string) => string;

function mac(secret: Buffer, memberId: string): string {
  return createHmac("sha256", secret).update(`svc-unsubscribe-v1\n${memberId}`).digest("base64url").slice(0, 32);
}

export async function unsubscribeSigner(db: DbOrTx): Promise<UnsubscribeSigner> {
  const secret = await urlSigningSecret(db);
  return (memberId) => `${TOKEN_VERSION}.${memberId}.${mac(secret, memberId)}`;
}

export function unsubscribeUrl(token: string): string {
  return `${publicBaseUrl()}/u/${token}`;
}

export function unsubscribeHeaders(sign: UnsubscribeSigner, memberId: string): Record<string, string> {
  return {
    "List-Unsubscribe": `<${unsubscribeUrl(sign(memberId))}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}

/** The member a token names, when its signature holds; null otherwise. */
async function memberOf(db: DbOrTx, token: string) {
  const [version, memberId, sig] = token.split(".");
  if (version !== TOKEN_VERSION || !memberId || !sig || !isUuid(memberId)) return null;
  const expected = Buffer.from(mac(await urlSigningSecret(db), memberId));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const [row] = await db
    .select({
      id: audienceMembers.id,
      email: audienceMembers.email,
      status: audienceMembers.status,
      audience: audiences.name,
    })
    .from(audienceMembers)
    .innerJoin(audiences, eq(audiences.id, audienceMembers.audienceId))
    .where(eq(audienceMembers.id, memberId));
  return row ?? null;
}

export interface UnsubscribeView {
  email: string;
  audience: string;
  unsubscribed: boolean;
}

/** What the unsubscribe page shows (GET): nothing changes. */
export async function unsubscribeState(db: DbOrTx, token: string): Promise<UnsubscribeView | null> {
  const m = await memberOf(db, token);
  return m ? { email: m.email, audience: m.audience, unsubscribed: m.status === "unsubscribed" } : null;
}

/** One-click unsubscribe (POST): the member turns `unsubscribed`; repeating it changes nothing. */
export async function unsubscribe(db: DbOrTx, token: string): Promise<UnsubscribeView | null> {
  const m = await memberOf(db, token);
  if (!m) return null;
  if (m.status !== "unsubscribed") {
    await db
      .update(audienceMembers)
      .set({ status: "unsubscribed", updatedAt: new Date() })
      .where(and(eq(audienceMembers.id, m.id), eq(audienceMembers.status, "active")));
  }
  return { email: m.email, audience: m.audience, unsubscribed: true };
}
