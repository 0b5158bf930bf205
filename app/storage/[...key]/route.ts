import { servePresignedGet, servePresignedPut } from "@/lib/http/storage";

type Ctx = { params: Promise<{ key: string[] }> };

/** Presigned uploads and downloads of the filesystem storage backend (the signature is the credential). */
export async function PUT(request: Request, { params }: Ctx): Promise<Response> {
  return servePresignedPut(request, (await params).key);
}

export async function GET(request: Request, { params }: Ctx): Promise<Response> {
  return servePresignedGet(request, (await params).key);
}
