/** Liveness probe for load balancers and the benchmark's no-auth baseline; outside /v1 and the kernel. */
export function GET(): Response {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}
