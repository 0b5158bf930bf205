import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { env } from "@/lib/env";
import { userContentHeaders } from "@/lib/providers/storage/user-content";
import { call, callRaw, newInbox, newOrg, type TestOrg } from "./harness";

/** Issue 10 #2: user content never runs as a page of the console's origin. (The browser-level check is e2e/user-content.spec.ts.) */

const HTML = "<!doctype html><script>document.title='pwned'</script><h1>hi</h1>";
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

let org: TestOrg;
const ids: Record<string, string> = {};

beforeAll(async () => {
  org = await newOrg();
  const inbox = await newInbox(org, "uc");
  const files = [
    { filename: "page.html", contentType: "text/html", content: HTML },
    { filename: "pic.svg", contentType: "image/svg+xml", content: SVG },
    { filename: "pic.png", contentType: "image/png", content: PNG },
    { filename: "doc.pdf", contentType: "application/pdf", content: "%PDF-1.4\n%%EOF\n" },
    { filename: "notes.txt", contentType: "text/plain", content: "<script>alert(1)</script>" },
  ];
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: {
      inboxId: inbox.id,
      to: "x@example.com",
      text: "files",
      attachments: files.map((f) => ({
        filename: f.filename,
        contentType: f.contentType,
        contentBase64: Buffer.from(f.content).toString("base64"),
      })),
    },
  });
  expect(sent.status).toBeLessThan(300);
  const message = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
  for (const a of message.attachments as { id: string; filename: string }[]) ids[a.filename] = a.id;
});

afterEach(() => {
  (env as { USER_CONTENT_ORIGIN?: string }).USER_CONTENT_ORIGIN = undefined;
});

async function links(filename: string) {
  const res = await call("GET", `/v1/attachments/${ids[filename]}/download-url?expiresInSeconds=60`, {
    key: org.secret,
  });
  expect(res.status).toBe(200);
  return res.body as { downloadUrl: string; shareUrl: string };
}

/** Fetches a signed link through the route module, as the browser addressed it (`Host` from the URL). */
async function fetchLink(url: string, host?: string) {
  const u = new URL(url);
  return callRaw("GET", `${u.pathname}${u.search}`, { ip: null, headers: { host: host ?? u.host } });
}

const sandboxed = (res: Response) => {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toMatch(/(^|;\s*)sandbox(;|$)/);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
};

describe("signed attachment links", () => {
  test("download links are attachments, never sniffed, sandboxed", async () => {
    for (const name of ["page.html", "pic.svg", "pic.png", "doc.pdf", "notes.txt"]) {
      const res = await fetchLink((await links(name)).downloadUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      sandboxed(res);
    }
  });

  test("share links show only inline-safe types inline; HTML and SVG are still downloaded, sandboxed", async () => {
    const html = await fetchLink((await links("page.html")).shareUrl);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-disposition")).toMatch(/^attachment;/);
    sandboxed(html);
    const svg = await fetchLink((await links("pic.svg")).shareUrl);
    expect(svg.headers.get("content-disposition")).toMatch(/^attachment;/);
    sandboxed(svg);
    const png = await fetchLink((await links("pic.png")).shareUrl);
    expect(png.headers.get("content-disposition")).toMatch(/^inline;/);
    expect(png.headers.get("content-type")).toBe("image/png");
    sandboxed(png);
    const txt = await fetchLink((await links("notes.txt")).shareUrl);
    expect(txt.headers.get("content-disposition")).toMatch(/^inline;/);
    expect(txt.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    sandboxed(txt);
    const pdf = await fetchLink((await links("doc.pdf")).shareUrl);
    expect(pdf.headers.get("content-disposition")).toMatch(/^inline;/);
    // Chrome's PDF viewer refuses sandboxed documents; the rest of the policy still holds.
    expect(pdf.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(pdf.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("inline is covered by the signature: adding it to a download link, or removing it from a share link, is refused", async () => {
    const { downloadUrl, shareUrl } = await links("pic.png");
    const widened = new URL(downloadUrl);
    widened.searchParams.set("inline", "1");
    expect((await fetchLink(widened.toString())).status).toBe(403);
    const narrowed = new URL(shareUrl);
    narrowed.searchParams.delete("inline");
    expect((await fetchLink(narrowed.toString())).status).toBe(403);
    const other = new URL(shareUrl);
    other.searchParams.set("inline", "true");
    expect((await fetchLink(other.toString())).status).toBe(403);
  });

  test("USER_CONTENT_ORIGIN: links are built on it, and the console's origin refuses user content", async () => {
    (env as { USER_CONTENT_ORIGIN?: string }).USER_CONTENT_ORIGIN = "http://usercontent.test:4100";
    const { downloadUrl, shareUrl } = await links("page.html");
    expect(new URL(downloadUrl).origin).toBe("http://usercontent.test:4100");
    expect(new URL(shareUrl).origin).toBe("http://usercontent.test:4100");
    expect((await fetchLink(downloadUrl)).status).toBe(200);
    const onConsole = await fetchLink(downloadUrl, "localhost:3000");
    expect(onConsole.status).toBe(404);
    expect(await onConsole.text()).toContain("http://usercontent.test:4100");
  });

  test("the API's /content download carries the same headers", async () => {
    const res = await callRaw("GET", `/v1/attachments/${ids["page.html"]}/content`, { key: org.secret });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    sandboxed(res);
  });
});

describe("userContentHeaders", () => {
  test.each<[string | null, boolean, string, "inline" | "attachment"]>([
    ["image/png", true, "image/png", "inline"],
    ["IMAGE/JPEG", true, "IMAGE/JPEG", "inline"],
    ["image/svg+xml", true, "image/svg+xml", "attachment"],
    ["text/html", true, "text/html", "attachment"],
    ["text/html; charset=utf-8", true, "text/html; charset=utf-8", "attachment"],
    ["application/xhtml+xml", true, "application/xhtml+xml", "attachment"],
    ["text/xml", true, "text/xml", "attachment"],
    ["application/javascript", true, "application/javascript", "attachment"],
    ["text/plain", true, "text/plain; charset=utf-8", "inline"],
    ["text/plain; charset=iso-8859-1", true, "text/plain; charset=iso-8859-1", "inline"],
    ["application/pdf", true, "application/pdf", "inline"],
    ["image/png", false, "image/png", "attachment"],
    ["text/html\r\nX-Injected: 1", true, "application/octet-stream", "attachment"],
    ["not a type", true, "application/octet-stream", "attachment"],
    [null, true, "application/octet-stream", "attachment"],
  ])("%j (inline asked: %j) → %j, %s", (type, wantInline, contentType, disposition) => {
    const out = userContentHeaders(type, "f.bin", wantInline);
    expect(out.disposition).toBe(disposition);
    expect(out.headers["Content-Type"]).toBe(contentType);
    expect(out.headers["Content-Disposition"]?.startsWith(disposition)).toBe(true);
    expect(out.headers["X-Content-Type-Options"]).toBe("nosniff");
    expect(() => new Headers(out.headers)).not.toThrow();
  });
});
