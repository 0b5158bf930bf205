import { serveSignedRecording } from "@/lib/http/signed-recording";

/** Signed call recording downloads (no API key; the URL's signature and expiry are the credential). */
export async function GET(request: Request, { params }: { params: Promise<{ callId: string }> }): Promise<Response> {
  return serveSignedRecording(request, (await params).callId);
}
