import { tailEvents } from "@/lib/console/events-tail";
import { readClientIp } from "@/lib/http/client-ip";

/** The console's live event tail: one session-authenticated long-poll read (see `tailEvents`). */
export async function GET(request: Request): Promise<Response> {
  const { status, body } = await tailEvents(
    request.headers.get("cookie"),
    new URL(request.url).searchParams,
    readClientIp(request.headers),
  );
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
