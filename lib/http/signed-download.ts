import { getDb } from "@/db";
import { env } from "@/lib/env";
import { userContentHeaders } from "@/lib/providers/storage/user-content";
import { signedAttachment } from "@/lib/messages/attachments";

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
 * HTTP side of signed attachment URLs (app/files/attachments/[attachmentId]). With
 * USER_CONTENT_ORIGIN configured, a request that arrives on any other host (the console's origin)
 * is refused (404): user content is only ever served from the separate origin, which links are built
 * on. `inline=1` must be covered by the signature (a download link with `inline=1` added is a 403),
 * and even then only inline-safe types are shown inline (lib/providers/storage/user-content.ts).
 */
export async function serveSignedAttachment(request: Request, attachmentId: string): Promise<Response> {
  const url = new URL(request.url);
  if (env.USER_CONTENT_ORIGIN && requestHost(request, url) !== new URL(env.USER_CONTENT_ORIGIN).host) {
    return refuse(404, `Attachments are served from ${env.USER_CONTENT_ORIGIN}, not from this origin.`);
  }
  const inline = url.searchParams.get("inline") === "1";
  const body = /^[0-9a-f-]{36}$/i.test(attachmentId)
    ? await signedAttachment(
        await getDb(),
        attachmentId,
        url.searchParams.get("expires"),
        url.searchParams.get("signature"),
        inline ? "inline" : "attachment",
      )
    : null;
  if (!body) return refuse(403, "This link is invalid or has expired.");
  const { headers } = userContentHeaders(body.contentType, body.filename, inline);
  return new Response(Buffer.from(body.bytes), { headers });
}

/** The host the browser addressed (its `Host` header; the scheme is left out, a proxy may terminate TLS). */
function requestHost(request: Request, url: URL): string {
  return (request.headers.get("host") ?? url.host).toLowerCase();
}
