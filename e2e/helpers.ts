import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page } from "@playwright/test";
import { E2E_DIR, OUTBOX_DIR, SHARED_DOMAIN } from "./env";

/** The first user of the install (owner.setup.ts signs them up; later specs sign in as them). */
export const OWNER = { name: "Olive Owner", email: "owner@example.com", password: "owner password 123" };
/** The owner's first organization and the two inboxes (with one message from Alice to Bob) that the setup creates. */
export const ORG = "Acme Robots";
export const ALICE = "alice";
export const BOB = "bob";
export const HELLO_SUBJECT = "Hello Bob";

/** The owner's signed-in browser state (cookies), saved by the setup for `test.use({ storageState })`. */
export const OWNER_STATE = path.join(E2E_DIR, "owner-state.json");
const OWNER_KEY_FILE = path.join(E2E_DIR, "owner-key.txt");

export function saveOwnerKey(secret: string): void {
  fs.writeFileSync(OWNER_KEY_FILE, secret, { mode: 0o600 });
}

/** The owner's admin API key (created in the console by the setup), as request headers. */
export function ownerAuth(): Record<string, string> {
  return { Authorization: `Bearer ${fs.readFileSync(OWNER_KEY_FILE, "utf8").trim()}` };
}

/** Creates `local@svc.localhost` through the API with the owner's key. */
export async function createInbox(request: APIRequestContext, local: string): Promise<{ id: string; address: string }> {
  const res = await request.post("/v1/inboxes", {
    headers: ownerAuth(),
    data: { address: `${local}@${SHARED_DOMAIN}` },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).inbox;
}

/** Sends a plain-text email through the API with the owner's key; returns the message id. */
export async function sendEmail(
  request: APIRequestContext,
  message: { inboxId: string; to: string; subject: string; text: string },
): Promise<string> {
  const res = await request.post("/v1/messages", { headers: ownerAuth(), data: message });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).id;
}

/** Signs in with the password form and waits for the console. */
export async function signIn(page: Page, account: { email: string; password: string } = OWNER): Promise<void> {
  await page.goto("/sign-in");
  const form = page.getByRole("form", { name: "Sign in with password" });
  await form.getByLabel("Email").fill(account.email);
  await form.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("main")).toBeVisible();
  await expect(page).not.toHaveURL(/\/sign-in/);
}

/** Opens a console page from the sidebar. */
export async function openPage(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click();
}

/**
 * Runs axe on the page: no serious or critical violations (WCAG 2 A/AA rules). The inside of a
 * sandboxed frame (an email's own HTML, scripts disabled) is left out: it is the sender's content,
 * and axe waits until the test times out for a frame where it cannot run (templates journey, CI of
 * stop 19). The console's own pages have no other frames.
 */
/** axe's experimental rules that test a WCAG 2.1 A/AA criterion (axe-core 4.13: `axe.getRules(["experimental"])`). */
const EXPERIMENTAL_WCAG_RULES = [
  "label-content-name-mismatch",
  "css-orientation-lock",
  "p-as-heading",
  "table-fake-caption",
  "td-has-header",
];

export async function expectAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    // axe leaves its experimental rules out of a tag run; the WCAG ones among them are turned on by id
    // (label-content-name-mismatch caught the overview's range links only this way). `options` first:
    // it replaces the whole option object that withTags then adds to.
    .options({ rules: Object.fromEntries(EXPERIMENTAL_WCAG_RULES.map((id) => [id, { enabled: true }])) })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .exclude("iframe[sandbox]")
    .analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const summary = bad.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 3)
        .join(", ")}`,
  );
  expect(summary, `accessibility of ${what}`).toEqual([]);
}

/** The text of the newest outbox email to `to` (the embedded transport writes one .eml per send). */
export async function waitForEmailTo(to: string, after = 0): Promise<string> {
  let found: string | null = null;
  await expect
    .poll(
      () => {
        if (!fs.existsSync(OUTBOX_DIR)) return null;
        const files = fs
          .readdirSync(OUTBOX_DIR)
          .map((f) => path.join(OUTBOX_DIR, f))
          .filter((f) => fs.statSync(f).mtimeMs >= after)
          .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
        for (const file of files) {
          const raw = fs.readFileSync(file, "utf8");
          if (raw.toLowerCase().includes(`to: ${to.toLowerCase()}`)) {
            found = raw;
            return true;
          }
        }
        return null;
      },
      { message: `an email to ${to} in ${OUTBOX_DIR}`, timeout: 20_000 },
    )
    .toBe(true);
  return found ?? "";
}

/** The first link matching `pattern` in a raw MIME message (quoted-printable soft breaks undone). */
export function linkIn(raw: string, pattern: RegExp): string {
  const unfolded = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = unfolded.match(pattern);
  if (!match) throw new Error(`no link matching ${pattern}`);
  return match[0].replace(/&amp;/g, "&");
}

/** A template, a contact and an audience made through the API with the owner's key: the detail pages the dark and phone runs check. */
export async function detailPages(request: APIRequestContext): Promise<string[]> {
  const source =
    'import { Html, Text } from "@react-email/components";\nexport default function E({ name }) { return <Html><Text>Hello {name}</Text></Html>; }';
  const template = await request.post("/v1/templates", {
    headers: ownerAuth(),
    data: { name: `Axe ${Date.now()}`, source, subject: "Hi {{ name }}" },
  });
  expect(template.status(), await template.text()).toBe(200);
  const contact = await request.post("/v1/contacts", {
    headers: ownerAuth(),
    data: {
      displayName: "Axe Contact",
      handles: [{ channel: "email", value: `axe-${Date.now()}@example.com`, isPrimary: true }],
    },
  });
  expect(contact.status(), await contact.text()).toBe(200);
  const audience = await request.post("/v1/audiences", { headers: ownerAuth(), data: { name: "Axe audience" } });
  expect(audience.status(), await audience.text()).toBe(200);
  const audienceId = (await audience.json()).list.id;
  const members = await request.post(`/v1/audiences/${audienceId}/members`, {
    headers: ownerAuth(),
    data: { members: [{ email: "axe-member@example.com", name: "Axe Member" }] },
  });
  expect(members.status(), await members.text()).toBe(200);
  const inboxes = await request.get("/v1/inboxes", { headers: ownerAuth() });
  const alice = ((await inboxes.json()).inboxes as { id: string; address: string }[]).find((i) =>
    i.address.startsWith(`${ALICE}@`),
  );
  const broadcast = await request.post(`/v1/audiences/${audienceId}/send`, {
    headers: ownerAuth(),
    data: { inboxId: alice?.id, subject: "Axe broadcast", text: "Hello, members." },
  });
  expect(broadcast.status(), await broadcast.text()).toBe(202);
  const logs = await request.get("/v1/logs?limit=1", { headers: ownerAuth() });
  expect(logs.status(), await logs.text()).toBe(200);
  return [
    `/logs/${(await logs.json()).logs[0].id}`,
    `/templates/${(await template.json()).template.id}`,
    `/contacts/${(await contact.json()).contact.id}`,
    `/audiences/${audienceId}`,
    `/broadcasts/${(await broadcast.json()).id}`,
  ];
}
