import { handleEventApi } from "@/lib/workflows/executor/http";

/** The embedded executor's event API (`inngest.send()` posts here in embedded mode). */
export async function POST(request: Request, { params }: { params: Promise<{ key: string }> }): Promise<Response> {
  return handleEventApi(request, (await params).key);
}
