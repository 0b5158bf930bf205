import { getDb } from "@/lib/console/database";
import { tailEvents } from "@/lib/console/events-tail";

/** The console's live event tail: one session-authenticated long-poll read (see `tailEvents`). */
export async function GET(request: Request): Promise<Response> {
  const { status, body } = await tailEvents(await getDb(), request.headers.get("cookie"), new URL(request.url).searchParams);
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
