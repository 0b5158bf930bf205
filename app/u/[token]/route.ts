import { serveUnsubscribe, serveUnsubscribePage } from "@/lib/http/unsubscribe";

type Ctx = { params: Promise<{ token: string }> };

/** List-Unsubscribe links of broadcast messages: GET shows the page, POST (one-click, RFC 8058) unsubscribes. */
export async function GET(_request: Request, { params }: Ctx): Promise<Response> {
  return serveUnsubscribePage((await params).token);
}

export async function POST(_request: Request, { params }: Ctx): Promise<Response> {
  return serveUnsubscribe((await params).token);
}
