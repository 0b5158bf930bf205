import { serveShareDownload } from "@/lib/http/share";

type Ctx = { params: Promise<{ token: string }> };

/** Share-link downloads: GET (no password), or POST from the share page's form. Each counts one use. */
export async function GET(request: Request, { params }: Ctx): Promise<Response> {
  return serveShareDownload(request, (await params).token);
}

export async function POST(request: Request, { params }: Ctx): Promise<Response> {
  return serveShareDownload(request, (await params).token);
}
