import { getDb } from "@/db";
import { signedAttachment } from "./attachments";

/** HTTP side of signed attachment URLs (app/files/attachments/[attachmentId]). */
export async function serveSignedAttachment(request: Request, attachmentId: string): Promise<Response> {
  const url = new URL(request.url);
  const body = /^[0-9a-f-]{36}$/i.test(attachmentId)
    ? await signedAttachment(await getDb(), attachmentId, url.searchParams.get("expires"), url.searchParams.get("signature"))
    : null;
  if (!body) return new Response("This link is invalid or has expired.", { status: 403, headers: { "Content-Type": "text/plain" } });
  const inline = url.searchParams.get("inline") === "1";
  const name = encodeURIComponent(body.filename ?? "attachment");
  return new Response(Buffer.from(body.bytes), {
    headers: {
      "Content-Type": body.contentType,
      "Content-Disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${name}`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox",
    },
  });
}
