import { BinaryBody, RawReply } from "@/lib/core/contract";
import type { ApiError } from "@/lib/core/errors";
import { userContentHeaders } from "@/lib/providers/storage/user-content";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** A JSON (or, for a `BinaryBody`, a byte; for a `RawReply`, its text as it is) response. 204 has no body. */
export function respond(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (body instanceof RawReply) {
    // A reply in a provider's own format (TwiML): its media type, never sniffed, never cached.
    return new Response(body.body, {
      status,
      headers: {
        "Content-Type": body.contentType,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        ...headers,
      },
    });
  }
  if (body instanceof BinaryBody) {
    // User content: downloaded, never sniffed, sandboxed (the same headers as signed links).
    return new Response(Buffer.from(body.bytes), {
      status,
      headers: { ...userContentHeaders(body.contentType, body.filename, false).headers, ...headers },
    });
  }
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

/** The error envelope with the error's own headers (Retry-After, Allow, …). */
export function errorResponse(err: ApiError, headers: Record<string, string> = {}): Response {
  return respond(err.status, err.toBody(), {
    ...headers,
    ...err.headers,
    ...(err.replayed ? { "Idempotent-Replayed": "true" } : {}),
  });
}
