import { serveSharePage } from "@/lib/http/share";

/** The branded share page of a share link or bundle (public; the token is the credential). */
export async function GET(request: Request, { params }: { params: Promise<{ token: string }> }): Promise<Response> {
  return serveSharePage(request, (await params).token);
}
