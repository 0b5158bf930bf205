import { serveSignedAttachment } from "@/lib/http/signed-download";

/** Signed attachment downloads (no API key; the URL's signature and expiry are the credential). */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ attachmentId: string }> },
): Promise<Response> {
  return serveSignedAttachment(request, (await params).attachmentId);
}
