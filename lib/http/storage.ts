import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { filesystemBackend } from "@/lib/providers/storage";
import type { SignedRequestFailure } from "@/lib/providers/storage/filesystem";

/**
 * The HTTP side of the filesystem backend's presigned URLs (`/storage/<key>?X-Svc-…`): a PUT
 * stores one upload (signature, expiry, exact headers, single use and size are checked by the
 * adapter), a GET serves a download. With the S3 backend the URLs point at S3 and this is a 404.
 */
function refusal(f: SignedRequestFailure): Response {
  return new Response(
    JSON.stringify({
      error: {
        type:
          f.status === 413 || f.status === 400
            ? "invalid_request_error"
            : f.status === 404
              ? "not_found_error"
              : "permission_error",
        code: f.code,
        message: f.message,
        param: "",
      },
    }),
    {
      status: f.status,
      headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
    },
  );
}

const keyOf = (segments: string[]) => segments.join("/");
const notHere = () => refusal({ ok: false, status: 404, code: "resource_not_found", message: "No such file." });

export async function servePresignedPut(request: Request, segments: string[]): Promise<Response> {
  const fsStore = filesystemBackend();
  if (!fsStore) return notHere();
  const url = new URL(request.url);
  const body = request.body
    ? Readable.fromWeb(request.body as unknown as NodeWebStream<Uint8Array>)
    : Readable.from([]);
  const result = await fsStore.acceptSignedPut({
    key: keyOf(segments),
    query: url.searchParams,
    header: (n) => request.headers.get(n),
    body,
  });
  if (!result.ok) return refusal(result);
  return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
}

export async function servePresignedGet(request: Request, segments: string[]): Promise<Response> {
  const fsStore = filesystemBackend();
  if (!fsStore) return notHere();
  const result = await fsStore.openSignedGet(keyOf(segments), new URL(request.url).searchParams);
  if (!result.ok) return refusal(result);
  return new Response(Readable.toWeb(result.body) as unknown as ReadableStream, {
    status: 200,
    headers: result.headers,
  });
}
