import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { SHARED_DOMAIN } from "./env";
import {
  ALICE,
  BOB,
  createInbox,
  expectAccessible,
  HELLO_SUBJECT,
  linkIn,
  openPage,
  ORG,
  OWNER,
  OWNER_STATE,
  ownerAuth,
  sendEmail,
  signIn,
  waitForEmailTo,
} from "./helpers";

/**
 * The operator's console, one independent test per concern: each starts signed in as the owner
 * (the `setup` project signed them up, created the organization, a key, the inboxes alice and bob
 * and one message) and creates what else it needs, so one failure hides none of the others. axe
 * checks every page on the way. Tests that sign in themselves start from an empty browser state.
 */
test.use({ storageState: OWNER_STATE });

const MEMBER = { name: "Max Member", email: "member@example.com", password: "member password 123" };
const suffix = Date.now().toString(36);
const signedOut = { cookies: [], origins: [] };

test("inboxes and a conversation: create two inboxes, send, reply from the reply box, see the thread", async ({
  page,
}) => {
  const carol = `carol-${suffix}`;
  const dave = `dave-${suffix}`;
  await page.goto("/inboxes");
  await expect(page.getByRole("heading", { name: "Inboxes", level: 1 })).toBeVisible();
  await expectAccessible(page, "inboxes");
  for (const local of [carol, dave]) {
    await page.getByLabel("Local part").fill(local);
    await expect(page.getByLabel("Domain")).toHaveValue(/.+/);
    await page.getByRole("button", { name: "Create inbox" }).click();
    await expect(
      page.getByRole("link", { name: new RegExp(`${local}@${SHARED_DOMAIN.replace(".", "\\.")}`) }),
    ).toBeVisible();
  }

  await page.getByRole("link", { name: new RegExp(`${carol}@`) }).click();
  await expectAccessible(page, "inbox detail");
  await page.getByLabel("To", { exact: true }).fill(`${dave}@${SHARED_DOMAIN}`);
  await page.getByLabel("Subject").fill(`Hello Dave ${suffix}`);
  await page.getByLabel("Message", { exact: true }).fill("Hi Dave, this is Carol.");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByText(/Message (sent|queued)\./)).toBeVisible();

  await openPage(page, "Threads");
  await expectAccessible(page, "threads");
  await page
    .getByRole("link", { name: new RegExp(`Hello Dave ${suffix}`) })
    .first()
    .click();
  // The list shows the same text as previews: wait for the conversation itself.
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("form", { name: "Reply to this conversation" })).toBeVisible();
  await expect(page.getByText("Hi Dave, this is Carol.")).toBeVisible();
  await expectAccessible(page, "conversation");
  await page.getByLabel("Reply", { exact: true }).fill("Hi Carol, Dave here.");
  await page.getByRole("button", { name: "Send reply" }).click();
  await expect(page.getByText("Hi Carol, Dave here.")).toBeVisible();
  await expect(page.getByText("Hi Dave, this is Carol.")).toBeVisible();

  await openPage(page, "Messages");
  await expect(page.getByRole("heading", { name: "Messages", level: 1 })).toBeVisible();
  await expectAccessible(page, "messages");
  await page
    .getByRole("link", { name: new RegExp(`Hello Dave ${suffix}`) })
    .first()
    .click();
  await expectAccessible(page, "message detail");
});

test("a hard-bounced send reads bounced in the Messages list; the status filter finds it", async ({ page }) => {
  const inbox = await createInbox(page.request, `bouncer-${suffix}`);
  await page.goto(`/inboxes/${inbox.id}`);
  await page.getByLabel("To", { exact: true }).fill("bounce@simulator.amazonses.com");
  await page.getByLabel("Subject").fill("Bounce me");
  await page.getByLabel("Message", { exact: true }).fill("This address does not exist.");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByText(/Message (sent|queued)\./)).toBeVisible();

  await openPage(page, "Messages");
  await expect(page.getByRole("row", { name: /Bounce me/ }).getByTestId("delivery-status")).toHaveText("bounced");
  // Inbox-to-inbox mail is delivered at once.
  await expect(
    page
      .getByRole("row", { name: new RegExp(HELLO_SUBJECT) })
      .first()
      .getByTestId("delivery-status"),
  ).toHaveText(/delivered|received/);
  // The filter applies on change, without a button.
  await page.getByLabel("Status").selectOption("bounced");
  await expect(page).toHaveURL(/status=bounced/);
  await expect(page.getByRole("link", { name: /Bounce me/ })).toBeVisible();
  await expect(page.getByRole("link", { name: new RegExp(HELLO_SUBJECT) })).toHaveCount(0);
  await page.getByRole("link", { name: /Bounce me/ }).click();
  await expect(page.getByTestId("delivery-status").first()).toHaveText("bounced");
});

test("search as you type finds a message by subject and by address; threads show direction and the latest message", async ({
  page,
}) => {
  const inboxes = (await (await page.request.get("/v1/inboxes", { headers: ownerAuth() })).json()).inboxes as {
    id: string;
    address: string;
  }[];
  const alice = inboxes.find((i) => i.address.startsWith(`${ALICE}@`));
  expect(alice).toBeTruthy();
  const subject = `Quarterly figures ${suffix}`;
  await sendEmail(page.request, {
    inboxId: alice?.id ?? "",
    to: `zed-${suffix}@example.com`,
    subject,
    text: "Numbers attached.",
  });

  await page.goto("/messages");
  const rows = page.getByRole("table", { name: "Messages" }).locator("tbody tr");
  const search = page.getByRole("searchbox", { name: "Search" });
  await search.fill(`quarterly FIGURES ${suffix}`);
  await expect(page).toHaveURL(/[?&]q=quarterly/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByRole("link", { name: subject })).toBeVisible();
  await search.fill(`zed-${suffix}@example`);
  await expect(page).toHaveURL(/[?&]q=zed-/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByRole("link", { name: subject })).toBeVisible();
  await search.fill("no such message anywhere");
  await expect(page.getByText("No messages match “no such message anywhere”")).toBeVisible();
  await expectAccessible(page, "messages search");

  // A conversation between two inboxes of the organization: one row per inbox, told apart by the
  // latest message's direction from that inbox's side, with its preview.
  await page.goto("/threads");
  await page.getByRole("searchbox", { name: "Search" }).fill(HELLO_SUBJECT);
  await expect(page).toHaveURL(/[?&]q=Hello/);
  const threadRows = page.getByRole("table", { name: "Threads" }).locator("tbody tr");
  await expect(threadRows).toHaveCount(2);
  const sentRow = threadRows.filter({ has: page.getByText("sent", { exact: true }) });
  const receivedRow = threadRows.filter({ has: page.getByText("received", { exact: true }) });
  await expect(sentRow.getByRole("cell").nth(1)).toHaveText(`${ALICE}@${SHARED_DOMAIN}`);
  await expect(receivedRow.getByRole("cell").nth(1)).toHaveText(`${BOB}@${SHARED_DOMAIN}`);
  await expect(sentRow.getByText("Hi Bob, this is Alice.")).toBeVisible();
  await expectAccessible(page, "threads search");
});

test("a webhook to a loopback receiver: see its delivery in the log", async ({ page }) => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    await page.goto("/webhooks");
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    await expectAccessible(page, "webhooks");
    await page.getByLabel("Endpoint URL").fill(`http://127.0.0.1:${port}/hook`);
    // The delivery rate limit takes the API's bounds; set on creation, shown and changed on the endpoint's page.
    const rate = page.getByRole("form", { name: "Create a webhook" }).getByLabel("Delivery rate limit (per second)");
    await expect(rate).toHaveAttribute("max", "10000");
    await rate.fill("5");
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page
      .getByRole("link", { name: new RegExp(`127\\.0\\.0\\.1:${port}`) })
      .first()
      .click();
    await expectAccessible(page, "webhook detail");
    await expect(page.getByText("5 deliveries per second")).toBeVisible();
    const edit = page.getByRole("form", { name: "Delivery rate limit" });
    await expect(edit.getByLabel("Delivery rate limit (per second)")).toHaveValue("5");
    await edit.getByLabel("Delivery rate limit (per second)").fill("0");
    await edit.getByRole("button", { name: "Save rate limit" }).click();
    await expect(edit.getByRole("alert")).toBeVisible();
    await edit.getByLabel("Delivery rate limit (per second)").fill("12");
    await edit.getByRole("button", { name: "Save rate limit" }).click();
    await expect(page.getByText("Rate limit set: 12 deliveries per second.")).toBeVisible();
    await expect(page.getByText("12 deliveries per second", { exact: true })).toBeVisible();
    await edit.getByLabel("Delivery rate limit (per second)").fill("");
    await edit.getByRole("button", { name: "Save rate limit" }).click();
    await expect(page.getByText("Rate limit removed: deliveries are not paced.")).toBeVisible();
    await page.getByRole("button", { name: "Send test" }).click();
    await expect(page.getByTestId("delivery-log")).toContainText("200", { timeout: 30_000 });
    // A success shows the receiver's answer, never as an error; no rotation yet, so no previous secret.
    await expect(page.getByTestId("delivery-log")).toContainText("ok");
    await expect(page.getByTestId("delivery-log")).not.toContainText("Error:");
    await expect(page.getByText("None: the secret has never been rotated")).toBeVisible();
    expect(received.length).toBeGreaterThan(0);
    expect(received[0]?.headers["webhook-signature"]).toMatch(/^v1,/);

    // The attempt opens in a dialog: the request as sent (the signature the receiver got), the response.
    await page.getByTestId("delivery-log").getByRole("button", { name: "Request and response" }).first().click();
    const attempt = page.getByRole("dialog", { name: /Attempt 1: webhook\.test/ });
    await expect(attempt).toBeVisible();
    await expect(attempt.getByText(received[0]?.headers["webhook-signature"] as string).first()).toBeVisible();
    await expect(attempt.getByTestId("attempt-request-body")).toContainText('"type": "webhook.test"');
    await expect(attempt.getByText("HTTP 200", { exact: false }).first()).toBeVisible();
    await expect(attempt.getByTestId("attempt-response-body")).toHaveText("ok");
    await expect(attempt.getByText(/Error/)).toHaveCount(0);
    await expectAccessible(page, "webhook attempt dialog");
    await page.keyboard.press("Escape");
    await expect(attempt).toBeHidden();

    // Deleting asks in a dialog and needs the endpoint's host typed.
    await page.getByRole("button", { name: "Delete webhook" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete this webhook?" });
    await expect(confirm).toBeVisible();
    await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessible(page, "delete webhook dialog");
    const go = confirm.getByRole("button", { name: "Delete webhook" });
    await expect(go).toBeDisabled();
    await confirm.getByLabel(/Type .* to confirm/).fill(`127.0.0.1:${port}`);
    await go.click();
    await expect(page).toHaveURL(/\/webhooks$/);
    await expect(page.getByRole("link", { name: new RegExp(`127\\.0\\.0\\.1:${port}`) })).toHaveCount(0);
  } finally {
    server.close();
  }
});

test("webhook URL errors say what to change", async ({ page }) => {
  await page.goto("/webhooks");
  await page.getByLabel("Endpoint URL").fill("http://example.com/hook");
  await page.getByRole("button", { name: "Create webhook" }).click();
  const error = page.getByText(/^The URL must use https:\/\//);
  await expect(error).toBeVisible();
  await expect(error).toContainText("WEBHOOK_ALLOW_LOOPBACK_HTTP");
  await expect(page.getByText(/does not resolve/)).toHaveCount(0);
});

test("a send refused for a recipient who complained offers to send anyway", async ({ page }) => {
  const inbox = await createInbox(page.request, `complainer-${suffix}`);
  const complainer = `complaint+${suffix}@simulator.amazonses.com`;
  await sendEmail(page.request, { inboxId: inbox.id, to: complainer, subject: "First", text: "Hello." });
  await page.goto(`/inboxes/${inbox.id}`);
  await page.getByLabel("To", { exact: true }).fill(complainer);
  await page.getByLabel("Subject").fill("Second");
  await page.getByLabel("Message", { exact: true }).fill("Hello again.");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(
    page.getByText(
      `${complainer} reported an earlier message from this organization as spam, so this send was stopped.`,
    ),
  ).toBeVisible();
  await expect(page.getByText(/ignoreComplaints/)).toHaveCount(0);
  const override = page.getByRole("checkbox", { name: `Send anyway, also to ${complainer}` });
  await expect(override).toBeVisible();
  await expectAccessible(page, "complaint override");
  await override.check();
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByText(/Message (sent|queued)\./)).toBeVisible();
  await expect(page.getByTestId("complaint-override")).toHaveCount(0);
});

test("destructive actions ask in a dialog: revoke a key, delete an inbox (its address typed)", async ({ page }) => {
  const keyName = `doomed-${suffix}`;
  const res = await page.request.post("/v1/api-keys", {
    headers: ownerAuth(),
    data: { name: keyName, scopes: ["messages:read"] },
  });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto("/api-keys");
  await page.getByRole("button", { name: `Revoke ${keyName}` }).click();
  const revoke = page.getByRole("dialog", { name: `Revoke the key “${keyName}”?` });
  await expect(revoke).toBeVisible();
  await expect(revoke).toContainText("cannot be undone");
  // Cancel leaves the key alone.
  await revoke.getByRole("button", { name: "Cancel" }).click();
  await expect(revoke).toBeHidden();
  await expect(page.getByRole("button", { name: `Revoke ${keyName}` })).toBeFocused();
  await page.getByRole("button", { name: `Revoke ${keyName}` }).click();
  await revoke.getByLabel(/Type .* to confirm/).fill(keyName);
  await revoke.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("button", { name: `Revoke ${keyName}` })).toHaveCount(0);

  const inbox = await createInbox(page.request, `doomed-${suffix}`);
  await page.goto(`/inboxes/${inbox.id}`);
  await page.getByRole("button", { name: "Delete inbox" }).click();
  const del = page.getByRole("dialog", { name: `Delete ${inbox.address}?` });
  await expect(del).toBeVisible();
  await expectAccessible(page, "delete inbox dialog");
  await del.getByLabel(/Type .* to confirm/).fill("not the address");
  await expect(del.getByRole("button", { name: "Delete inbox" })).toBeDisabled();
  await del.getByLabel(/Type .* to confirm/).fill(inbox.address);
  await del.getByRole("button", { name: "Delete inbox" }).click();
  await expect(page).toHaveURL(/\/inboxes$/);
});

test("a contact is edited (name, alias) and deleted in a dialog (its name typed); a template is archived in a dialog", async ({
  page,
}) => {
  const name = `Doomed Contact ${suffix}`;
  const contact = await page.request.post("/v1/contacts", {
    headers: ownerAuth(),
    data: {
      displayName: name,
      handles: [{ channel: "email", value: `doomed-${suffix}@example.com`, isPrimary: true }],
    },
  });
  expect(contact.status(), await contact.text()).toBe(200);
  await page.goto(`/contacts/${(await contact.json()).contact.id}`);
  // Edit first: an empty name is refused in words; a new name and alias are saved and shown.
  const edit = page.getByRole("form", { name: "Edit contact" });
  await edit.getByLabel("Name").fill("");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByRole("alert").first()).toBeVisible();
  const renamed = `${name} Renamed`;
  await edit.getByLabel("Name").fill(renamed);
  await edit.getByLabel("Alias (optional)").fill(`doomed-${suffix}`);
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByRole("status")).toHaveText("Saved.");
  await expect(page.getByRole("heading", { name: renamed, level: 1 })).toBeVisible();
  await expect(page.getByText(`@doomed-${suffix}`).first()).toBeVisible();
  await expectAccessible(page, "contact edit form");

  await page.getByRole("button", { name: "Delete contact" }).click();
  const del = page.getByRole("dialog", { name: `Delete ${renamed}?` });
  await expect(del.getByRole("button", { name: "Cancel" })).toBeFocused();
  await expect(del.getByRole("button", { name: "Delete contact" })).toBeDisabled();
  await expectAccessible(page, "delete contact dialog");
  await del.getByLabel(/Type .* to confirm/).fill(renamed);
  await del.getByRole("button", { name: "Delete contact" }).click();
  await expect(page).toHaveURL(/\/contacts$/);

  const source =
    'import { Html, Text } from "@react-email/components";\nexport default function E() { return <Html><Text>Bye</Text></Html>; }';
  const template = await page.request.post("/v1/templates", {
    headers: ownerAuth(),
    data: { name: `Doomed ${suffix}`, source, subject: "Bye" },
  });
  expect(template.status(), await template.text()).toBe(200);
  await page.goto(`/templates/${(await template.json()).template.id}`);
  await page.getByRole("button", { name: "Archive" }).click();
  const archive = page.getByRole("dialog", { name: `Archive Doomed ${suffix}?` });
  await archive.getByRole("button", { name: "Archive template" }).click();
  await expect(page.getByRole("button", { name: "Restore" })).toBeVisible();
});

test("the API reference: in the console's sidebar, readable types, examples, Markdown rendered, fits the viewport", async ({
  page,
  browser,
  baseURL,
}) => {
  await page.goto("/");
  await openPage(page, "API reference");
  await expect(page).toHaveURL(/\/docs\/api$/);
  await expect(page.getByRole("heading", { name: "Multi-Channel Messaging Service API", level: 1 })).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "API reference" }),
  ).toHaveAttribute("aria-current", "page");
  await page.getByRole("navigation", { name: "API resources" }).getByRole("link", { name: "Webhooks" }).click();
  await expect(page).toHaveURL(/\/docs\/api\/webhooks$/);
  const op = page.locator("article#createWebhook");
  // Markdown rendered: code spans, no backticks left.
  await expect(op.locator("code", { hasText: "webhook-signature" }).first()).toBeVisible();
  await expect(op.getByText(/`/)).toHaveCount(0);
  await expect(op.getByText('"url": "https://example.com/hooks/svc"', { exact: false }).first()).toBeVisible();
  await expect(op.getByText(/curl -X POST/)).toBeVisible();
  await op.getByText("Fields of webhook").click();
  await expect(op.getByText("string (uuid)").first()).toBeVisible();
  await expect(page.getByText(/\[0-9a-fA-F\]\{8\}/)).toHaveCount(0);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(page.viewportSize()?.width ?? 1280);
  await expectAccessible(page, "API reference");
  // Signed out it is public, without the console's frame.
  const anon = await browser.newContext({ baseURL, storageState: signedOut });
  const anonPage = await anon.newPage();
  expect((await anonPage.goto("/docs/api"))?.status()).toBe(200);
  await expect(anonPage.getByRole("heading", { name: "Multi-Channel Messaging Service API", level: 1 })).toBeVisible();
  await expect(anonPage.getByRole("navigation", { name: "Console" })).toHaveCount(0);
  await anon.close();
});

test("event rows say what they concern, can be told apart, and link to the message, thread and inbox", async ({
  page,
}) => {
  // Two sends in the same second: their UUIDv7 ids share the first 8 characters (the timestamp).
  const inbox = await createInbox(page.request, `tail-${Date.now()}`);
  for (const n of [1, 2])
    await sendEmail(page.request, { inboxId: inbox.id, to: `tail${n}@example.com`, subject: `Tail ${n}`, text: "." });
  await page.goto("/events?type=message.sent");
  const rows = page.getByTestId("event-row");
  const row = rows.first();
  await expect(row).toBeVisible();
  // The human side: the message's subject and counterpart, from the event's data.
  await expect(page.getByTestId("event-summary").filter({ hasText: "“Tail 2”" })).toHaveText(
    "“Tail 2” to tail2@example.com",
  );
  // Ids by their distinctive end (a UUIDv7 starts with its timestamp); the whole id on hover.
  const ids = await page.getByTestId("event-id").allTextContents();
  expect(ids.length).toBeGreaterThan(1);
  expect(new Set(ids).size).toBe(ids.length);
  const messageLinks = await rows.getByRole("link", { name: /^Message / }).allTextContents();
  expect(new Set(messageLinks).size).toBe(messageLinks.length);
  await expect(row.getByTestId("event-id")).toHaveAttribute("title", /^evt_\w/);
  await expect(row.getByRole("link", { name: /^Inbox …[0-9a-f]{8}$/ })).toBeVisible();
  await expect(row.getByRole("link", { name: /^Thread …[0-9a-f]{8}$/ })).toBeVisible();
  await row.getByRole("link", { name: /^Message …[0-9a-f]{8}$/ }).click();
  await expect(page).toHaveURL(/\/messages\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("delivery-status").first()).toBeVisible();
});

test("the other pages render and are accessible", async ({ page }) => {
  test.slow(); // eight pages, axe on each
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  await expectAccessible(page, "overview");
  for (const [link, heading] of [
    ["API keys", "API keys"],
    ["Domains", "Domains"],
    ["Events", "Events"],
    ["Audit log", "Audit log"],
    ["Workflow runs", "Workflow runs"],
    ["Settings", "Settings"],
    ["Letters", "Letters"],
  ] as const) {
    await openPage(page, link);
    await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
    await expectAccessible(page, link);
  }
});

test("settings: the API base URL, and renaming the organization", async ({ page, baseURL }) => {
  await page.goto("/settings");
  await expect(page.getByText(baseURL ?? "", { exact: true })).toBeVisible();
  const form = page.getByRole("form", { name: "Rename organization" });
  await form.getByLabel("Organization name").fill(`${ORG} Renamed`);
  await form.getByRole("button", { name: "Rename" }).click();
  await expect(form.getByText("Organization renamed.")).toBeVisible();
  const switcher = page.getByRole("combobox", { name: "Organization" });
  await expect(switcher.locator("option:checked")).toHaveText(`${ORG} Renamed (owner)`);
  // Back, for the other specs.
  await form.getByLabel("Organization name").fill(ORG);
  await form.getByRole("button", { name: "Rename" }).click();
  await expect(switcher.locator("option:checked")).toHaveText(`${ORG} (owner)`);
});

test("invite a member, who accepts in a second browser and cannot open API keys", async ({
  page,
  browser,
  baseURL,
}) => {
  await page.goto("/members");
  await expectAccessible(page, "members");
  const before = Date.now() - 1000;
  await page.getByLabel("Email").fill(MEMBER.email);
  await page.getByLabel("Role").selectOption("member");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${MEMBER.email}.`)).toBeVisible();
  await expect(page.getByRole("cell", { name: MEMBER.email })).toBeVisible();

  const raw = await waitForEmailTo(MEMBER.email, before);
  const link = linkIn(raw, /https?:\/\/[^\s"<>]+\/invitations\/[A-Za-z0-9_-]+/);
  expect(new URL(link).pathname).toMatch(/^\/invitations\//);

  const second = await browser.newContext({ baseURL, storageState: signedOut });
  const memberPage = await second.newPage();
  await memberPage.goto(new URL(link).pathname);
  await expect(memberPage.getByRole("heading", { name: `Join ${ORG}` })).toBeVisible();
  await expectAccessible(memberPage, "invitation");
  await memberPage.getByRole("link", { name: "Create account" }).click();
  await expect(memberPage.getByLabel("Email")).toHaveValue(MEMBER.email);
  await memberPage.getByLabel("Name").fill(MEMBER.name);
  await memberPage.getByLabel("Password").fill(MEMBER.password);
  await memberPage.getByRole("button", { name: "Create account" }).click();
  await expect(memberPage.getByRole("button", { name: "Accept invitation" })).toBeVisible();
  await memberPage.getByRole("button", { name: "Accept invitation" }).click();
  await expect(memberPage.getByText("Role: member")).toBeVisible();
  await expect(memberPage.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await memberPage.goto("/api-keys");
  await expect(memberPage.getByText("You don't have access to API keys")).toBeVisible();
  await expectAccessible(memberPage, "api keys (member)");
  await memberPage.goto("/threads");
  await expect(memberPage.getByRole("link", { name: new RegExp(HELLO_SUBJECT) }).first()).toBeVisible();
  await second.close();

  await page.reload();
  await expect(page.getByRole("cell", { name: MEMBER.email }).first()).toBeVisible();
});

test("a second organization, the switcher, and a stale tab cannot change the other organization", async ({
  page,
  context,
}) => {
  await page.goto("/");
  await expect(page.getByText("Role: owner")).toBeVisible();

  await page.getByRole("link", { name: "+ New organization" }).click();
  await expect(page.getByRole("heading", { name: "New organization" })).toBeVisible();
  await page.getByLabel("Organization name").fill("Second Org");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  const switcher = page.getByRole("combobox", { name: "Organization" });
  await expect(switcher.locator("option:checked")).toHaveText(/Second Org/);

  // A second tab shows the inboxes of Second Org (none yet) ...
  const stale = await context.newPage();
  await stale.goto("/inboxes");
  await expect(stale.getByRole("combobox", { name: "Organization" }).locator("option:checked")).toHaveText(
    /Second Org/,
  );

  // ... then the first tab switches back to the first organization and sees its inboxes.
  await switcher.selectOption({ label: `${ORG} (owner)` });
  await expect(switcher.locator("option:checked")).toHaveText(new RegExp(ORG));
  await openPage(page, "Inboxes");
  await expect(page.getByRole("link", { name: new RegExp(`${ALICE}@`) })).toBeVisible();

  // The stale tab's change is refused instead of landing in the organization it does not show.
  await stale.getByLabel("Local part").fill(`stale-${suffix}`);
  await stale.getByRole("button", { name: "Create inbox" }).click();
  await expect(stale.getByText(/switched organization in another tab/)).toBeVisible();
  await page.reload();
  await expect(page.getByRole("link", { name: new RegExp(`stale-${suffix}@`) })).toHaveCount(0);
});

test("forms: empty required fields read as sentences; inputs carry the contract's limits", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByText("Role: owner")).toBeVisible();

  await test.step("API key: a name and at least one scope", async () => {
    await openPage(page, "API keys");
    await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("maxlength", "120");
    await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("required", "");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByText("Enter a name", { exact: true })).toBeVisible();
    await expect(page.getByText("Pick at least one scope", { exact: true })).toBeVisible();
    await expect(page.getByText(/Invalid input|Too small/)).toHaveCount(0);
    // Presets tick the scopes they stand for.
    await page.getByRole("button", { name: "Read only" }).click();
    await expect(page.getByRole("checkbox", { name: "messages:read", exact: true })).toBeChecked();
    await expect(page.getByRole("checkbox", { name: "messages:send", exact: true })).not.toBeChecked();
    await page.getByRole("button", { name: "Sending only" }).click();
    await expect(page.getByRole("checkbox", { name: "messages:send", exact: true })).toBeChecked();
    await expect(page.getByRole("checkbox", { name: "messages:read", exact: true })).not.toBeChecked();
  });

  await test.step("domain: a domain name", async () => {
    await openPage(page, "Domains");
    await expect(page.getByLabel("Domain name")).toHaveAttribute("maxlength", "253");
    await page.getByRole("button", { name: "Add domain" }).click();
    await expect(page.getByText("Enter a domain name", { exact: true })).toBeVisible();
  });

  await test.step("webhook: a URL and at least one event type", async () => {
    await openPage(page, "Webhooks");
    // The event types the product emits, grouped (letters emit theirs now).
    await expect(
      page.getByRole("group", { name: "message events" }).getByRole("checkbox", { name: "message.bounced" }),
    ).toBeVisible();
    await expect(page.getByRole("checkbox", { name: "letter.status_changed" })).toHaveCount(1);
    await page.getByRole("checkbox", { name: "All events" }).uncheck();
    await page.getByRole("button", { name: "Create webhook" }).click();
    await expect(page.getByText("Enter a URL", { exact: true })).toBeVisible();
    await expect(page.getByText("Pick at least one event type", { exact: true })).toBeVisible();
  });

  await test.step("inbox: the part before the @", async () => {
    await openPage(page, "Inboxes");
    await expect(page.getByLabel("Local part")).toHaveAttribute("maxlength", "64");
    await page.getByRole("button", { name: "Create inbox" }).click();
    await expect(page.getByText("Give the part of the address before the @.")).toBeVisible();
  });

  await test.step("member invitation: an email address", async () => {
    await openPage(page, "Members");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByText("Enter a valid email address.")).toBeVisible();
  });

  await test.step("settings: the new password", async () => {
    await openPage(page, "Settings");
    await page.getByRole("button", { name: "Save password" }).click();
    await expect(page.getByText("Enter a new password", { exact: true })).toBeVisible();
  });

  await test.step("new organization: its name", async () => {
    await page.getByRole("link", { name: "+ New organization" }).click();
    await expect(page.getByLabel("Organization name")).toHaveAttribute("maxlength", "80");
    await page.getByRole("button", { name: "Create organization" }).click();
    await expect(page.getByText("Enter an organization name", { exact: true })).toBeVisible();
  });
});

test("small truths: branded 404 with status 404, a favicon, an inbox lists its messages, local times", async ({
  page,
}) => {
  const unknown = await page.goto("/messages/01930000-0000-7000-8000-000000000000");
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Nothing here" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
  await expectAccessible(page, "not found");
  expect((await page.goto("/inboxes/not-an-id"))?.status()).toBe(404);
  expect((await page.goto("/no-such-page"))?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Nothing here" })).toBeVisible();
  const icon = await page.request.get("/icon.svg");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");

  await page.goto("/inboxes");
  await page.getByRole("link", { name: new RegExp(`${ALICE}@`) }).click();
  const recent = page.getByRole("table", { name: /Recent messages of/ });
  await expect(recent.getByRole("link", { name: /Hello Bob/ }).first()).toBeVisible();
  // Times are relative in the viewer's zone, the absolute time (with UTC) on hover.
  const time = recent.locator("time").first();
  await expect(time).toHaveText(/ago|just now|now/);
  await expect(time).toHaveAttribute("title", /UTC/);
});

/** Signing in and out, from an empty browser (these change the owner's password and restore it). */
test.describe("signed out", () => {
  test.use({ storageState: signedOut });

  test("sign-in form: the contract's limits on the inputs, a sentence for an empty address", async ({ page }) => {
    await page.goto("/sign-in");
    const passwordForm = page.getByRole("form", { name: "Sign in with password" });
    await expect(passwordForm.getByLabel("Email")).toHaveAttribute("maxlength", "254");
    await expect(passwordForm.getByLabel("Email")).toHaveAttribute("type", "email");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(passwordForm.getByText("Enter a valid email address.")).toBeVisible();
    await signIn(page);
    await expect(page.getByText("Role: owner")).toBeVisible();
  });

  test("sign out, then sign in with a password and with an email link", async ({ page }) => {
    await page.goto("/sign-in");
    const passwordForm = page.getByRole("form", { name: "Sign in with password" });
    await passwordForm.getByLabel("Email").fill(OWNER.email);
    await passwordForm.getByLabel("Password").fill("wrong password!!");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByText("Wrong email or password.")).toBeVisible();
    await passwordForm.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByText("Role: owner")).toBeVisible();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in/);

    const before = Date.now() - 1000;
    await page.getByRole("form", { name: "Sign in with an email link" }).getByLabel("Email").fill(OWNER.email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    await expectAccessible(page, "check email");
    const raw = await waitForEmailTo(OWNER.email, before);
    const link = linkIn(raw, /https?:\/\/[^\s"<>]+\/api\/auth\/callback\/email\?[^\s"<>]+/);
    await page.goto(link);
    await expect(page.getByText("Role: owner")).toBeVisible();

    // The password was chosen before the address was ever proven, so the first email-link sign-in
    // cleared it; the owner sets a new one in Settings.
    await openPage(page, "Settings");
    await expect(page.getByText("No password is set")).toBeVisible();
    await expectAccessible(page, "settings without a password");
    await page.getByLabel("New password").fill(OWNER.password);
    await page.getByRole("button", { name: "Save password" }).click();
    await expect(page.getByText("Password saved.")).toBeVisible();
    await expect(page.getByLabel("Current password")).toBeVisible();
  });
});

test("a refused API request is found in the Request log by its key, with its body and error", async ({
  page,
  request,
}) => {
  const created = await request.post("/v1/api-keys", {
    headers: ownerAuth(),
    data: { name: "log probe", scopes: ["inboxes:write"] },
  });
  expect(created.status()).toBe(200);
  const probe = (await created.json()).secret as string;
  const refused = await request.post("/v1/inboxes", {
    headers: { Authorization: `Bearer ${probe}` },
    data: { displayName: "no address given" },
  });
  expect(refused.status()).toBe(400);

  await page.goto("/api-keys");
  await page.getByRole("link", { name: /requests by log probe in the last 24 hours/ }).click();
  await expect(page.getByRole("heading", { name: "Request log", level: 1 })).toBeVisible();
  await expect(page.getByLabel("API key")).toHaveValue(/.+/);
  const row = page.getByTestId("request-log-row").filter({ hasText: "/v1/inboxes" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("400");
  await expect(row).toContainText("log probe");
  await expectAccessible(page, "the request log");
  await row.getByRole("link", { name: /Details of POST \/v1\/inboxes/ }).click();
  await expect(page.getByRole("heading", { name: "POST /v1/inboxes" })).toBeVisible();
  await expect(page.getByText("no address given")).toBeVisible();
  await expect(page.getByText("invalid request").first()).toBeVisible();
  await expectAccessible(page, "a request of the log");
});
