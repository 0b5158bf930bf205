import { handleRegister } from "@/lib/workflows/executor/http";

/** The embedded executor's registration endpoint (the SDK's answer to the PUT sync). */
export function POST(request: Request): Promise<Response> {
  return handleRegister(request);
}
