import { Readable as NodeReadable } from "node:stream";
import { getDb } from "@/db";
import { downloadShare, type DownloadResult, type ShareView, viewShare, type Visitor } from "@/lib/buckets/shares";
import { storage } from "@/lib/providers/storage";
import { userContentHeaders } from "@/lib/providers/storage/user-content";
import { readClientIp } from "./client-ip";
import { esc, publicPage } from "./public-page";

/**
 * The public side of share links: `/s/{token}` (a branded page: the file or files, a password form
 * when the link has one) and `/d/{token}` (the download; GET, or POST from the page's password
 * form). The token is the credential; every download counts one use (lib/buckets/shares.ts).
 */
const visitor = (request: Request): Visitor => ({
  ip: readClientIp(request.headers),
  userAgent: request.headers.get("user-agent"),
});

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

const REASONS: Record<string, string> = {
  unknown: "This link does not exist.",
  revoked: "This link has been revoked.",
  expired: "This link has expired.",
  used_up: "This link has been used up.",
  password_required: "This link needs its password.",
  wrong_password: "That password is not right.",
  not_available: "This file is not available.",
  locked_out: "Too many wrong passwords. Try again later.",
  busy: "Too many attempts at once. Try again in a moment.",
};

const page = (title: string, body: string, status = 200) => publicPage(title, "shared files", body, status);

function fileForm(token: string, view: ShareView, fileId: string, error: string | null): string {
  const hidden = view.kind === "bundle" ? `<input type="hidden" name="objectId" value="${esc(fileId)}">` : "";
  if (!view.hasPassword)
    return `<form method="post" action="/d/${esc(token)}">${hidden}<button type="submit">Download</button></form>`;
  return `<form method="post" action="/d/${esc(token)}">${hidden}<label>Password <input type="password" name="password" required autocomplete="off"></label>${error ? `<p class="err">${esc(error)}</p>` : ""}<button type="submit">Download</button></form>`;
}

function renderShare(token: string, view: ShareView, error: string | null = null, status = 200): Response {
  if (view.closed)
    return page("Link unavailable", `<h1>${esc(REASONS[view.closed] ?? "This link cannot be used.")}</h1>`, 410);
  if (view.files.length === 0) return page("Nothing to download", `<h1>${esc(REASONS.not_available ?? "")}</h1>`, 404);
  const items = view.files
    .map(
      (f) =>
        `<li><span>${esc(f.filename)}<br><small>${esc(size(f.bytes))}</small></span>${fileForm(token, view, f.id, error)}</li>`,
    )
    .join("");
  const title =
    view.files.length === 1 ? (view.files[0]?.filename ?? "Shared file") : `${view.files.length} shared files`;
  return page(
    title,
    `<h1>${esc(title)}</h1>${view.hasPassword ? "<p>This link is protected by a password.</p>" : ""}<ul>${items}</ul>`,
    status,
  );
}

export async function serveSharePage(request: Request, token: string): Promise<Response> {
  const view = await viewShare(await getDb(), token, visitor(request));
  if (!view) return page("Link not found", `<h1>${esc(REASONS.unknown ?? "")}</h1>`, 404);
  return renderShare(token, view);
}

async function fileResponse(result: Extract<DownloadResult, { ok: true }>): Promise<Response> {
  const found = await storage().stream(result.file.storageKey);
  if (!found) return page("File missing", "<h1>This file no longer exists.</h1>", 404);
  const { headers } = userContentHeaders(result.file.contentType, result.file.filename, false);
  return new Response(NodeReadable.toWeb(found.body) as unknown as ReadableStream, {
    status: 200,
    headers: { ...headers, "Content-Length": String(found.info.size) },
  });
}

export async function serveShareDownload(request: Request, token: string): Promise<Response> {
  const url = new URL(request.url);
  let password: string | null = null;
  let objectId = url.searchParams.get("objectId");
  if (request.method === "POST") {
    const form = await request.formData().catch(() => null);
    const p = form?.get("password");
    const o = form?.get("objectId");
    password = typeof p === "string" ? p : null;
    if (typeof o === "string") objectId = o;
  }
  const db = await getDb();
  const result = await downloadShare(db, token, { password, objectId }, visitor(request));
  if (result.ok) return fileResponse(result);
  if (result.reason === "password_required" || result.reason === "wrong_password") {
    // Back to the page with the password form and the reason (the refusal is in the opens log).
    const view = await viewShare(db, token, visitor(request), { log: false });
    if (view) return renderShare(token, view, REASONS[result.reason] ?? null, result.status);
  }
  const response = page(
    "Download unavailable",
    `<h1>${esc(REASONS[result.reason] ?? "This download is not available.")}</h1>`,
    result.status,
  );
  if (result.status === 429) response.headers.set("Retry-After", String(result.retryAfterSeconds));
  return response;
}
