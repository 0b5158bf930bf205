import { expect, test } from "@playwright/test";
import { SHARED_DOMAIN } from "./env";
import { ALICE, createInbox, expectAccessible, OWNER_STATE, ownerAuth, sendEmail, waitForEmailTo } from "./helpers";

/**
 * Console v3 (issue 28): a failed console form links to its request log entry, the request log's
 * time filters, the audience send form's preview and test send, and a message's Plain text and
 * Headers views. Each test is independent and creates what it needs through the API.
 */

test.use({ storageState: OWNER_STATE });

const suffix = Date.now().toString(36);

test("a failed console form links to its request log entry, which shows the console as its source", async ({
  page,
}) => {
  const inbox = await createInbox(page.request, `logged-${suffix}`);
  const complainer = `complaint+logged-${suffix}@simulator.amazonses.com`;
  await sendEmail(page.request, { inboxId: inbox.id, to: complainer, subject: "First", text: "Hello." });
  await page.goto(`/inboxes/${inbox.id}`);
  const form = page.getByRole("form", { name: `Send a message from ${inbox.address}` });
  await form.getByLabel("To", { exact: true }).fill(complainer);
  await form.getByLabel("Subject").fill(`Refused ${suffix}`);
  await form.getByLabel("Message", { exact: true }).fill("Hello again.");
  await form.getByRole("button", { name: "Send", exact: true }).click();
  const alert = form.getByRole("alert");
  await expect(alert).toContainText("reported an earlier message from this organization as spam");
  await form.getByRole("link", { name: "See this request in the log" }).click();

  await expect(page).toHaveURL(/\/logs\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "POST /v1/messages", level: 1 })).toBeVisible();
  await expect(page.getByText("A console form (its action runs this API operation)")).toBeVisible();
  await expect(page.getByText("None (console session)")).toBeVisible();
  await expect(page.getByText(`Refused ${suffix}`)).toBeVisible(); // the request body
  await expectAccessible(page, "a console form's request log entry");
});

test("the request log filters by time: since and until, in the URL and kept on reload", async ({ page }) => {
  await page.goto("/logs");
  await expect(page.getByRole("heading", { name: "Request log", level: 1 })).toBeVisible();
  await expect(page.getByTestId("request-log-row").first()).toBeVisible();
  const filters = page.getByRole("form", { name: "Filter the request log" });

  await filters.getByLabel("Until (your time)").fill("2001-02-03T04:05");
  await expect(page).toHaveURL(/[?&]until=2001-02-0\dT\d\d%3A05%3A00\.000Z/);
  await expect(page.getByText("No requests match these filters")).toBeVisible();
  await page.reload();
  await expect(filters.getByLabel("Until (your time)")).toHaveValue("2001-02-03T04:05");
  await expect(page.getByText("No requests match these filters")).toBeVisible();

  await filters.getByLabel("Until (your time)").fill("");
  await filters.getByLabel("Since (your time)").fill("2001-02-03T04:05");
  await expect(page).toHaveURL(/[?&]since=2001-02-0\dT\d\d%3A05%3A00\.000Z/);
  await expect(page).not.toHaveURL(/until=/);
  await expect(page.getByTestId("request-log-row").first()).toBeVisible();
  await expectAccessible(page, "the request log filtered by time");
});

test("the audience send form previews the draft and sends a test to one address", async ({ page }) => {
  const created = await page.request.post("/v1/audiences", {
    headers: ownerAuth(),
    data: { name: `Preview list ${suffix}` },
  });
  expect(created.status(), await created.text()).toBe(200);
  const audienceId = (await created.json()).list.id;
  const member = `preview-member-${suffix}@example.com`;
  const added = await page.request.post(`/v1/audiences/${audienceId}/members`, {
    headers: ownerAuth(),
    data: { members: [{ email: member }] },
  });
  expect(added.status(), await added.text()).toBe(200);

  await page.goto(`/audiences/${audienceId}`);
  const send = page.getByRole("form", { name: "Send broadcast" });
  await send.getByLabel("From inbox").selectOption({ label: `${ALICE}@${SHARED_DOMAIN}` });
  await send.getByLabel("Subject").fill(`Draft ${suffix}`);
  await send.getByRole("textbox", { name: "Text" }).fill("What members read.");
  await send.getByRole("button", { name: "Preview", exact: true }).click();
  const preview = send.getByRole("region", { name: "Preview" });
  await expect(preview).toContainText(`Draft ${suffix}`);
  await expect(preview).toContainText("What members read.");
  await expectAccessible(page, "an audience's send form with its preview");

  const tester = `tester-${suffix}@example.com`;
  const before = Date.now();
  await send.getByLabel("Send a test to one address").fill(tester);
  await send.getByRole("button", { name: "Send a test", exact: true }).click();
  await expect(send.getByRole("status")).toContainText(`Test sent to ${tester}`);
  expect(await waitForEmailTo(tester, before)).toContain("What members read.");
  // The audience is not touched: no broadcast was created for it.
  await page.goto("/broadcasts");
  await expect(page.getByRole("heading", { name: "Broadcasts", level: 1 })).toBeVisible();
  await expect(page.getByText(`Draft ${suffix}`)).toHaveCount(0);
});

test("a message's Plain text and Headers views show text as text", async ({ page }) => {
  const inbox = await createInbox(page.request, `views-${suffix}`);
  const subject = `Views ${suffix}`;
  const res = await page.request.post("/v1/messages", {
    headers: ownerAuth(),
    data: {
      inboxId: inbox.id,
      to: [`reader-${suffix}@example.com`],
      subject,
      text: "Plain part with <b>x</b> in it.",
      html: "<p>The <i>HTML</i> part.</p>",
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto(`/messages/${(await res.json()).id}`);
  const tabs = page.getByRole("tablist", { name: "Message views" });
  await expect(tabs.getByRole("tab", { name: "HTML" })).toHaveAttribute("aria-selected", "true");

  await tabs.getByRole("tab", { name: "Plain text" }).click();
  const text = page.getByTestId("view-text");
  await expect(text).toContainText("Plain part with <b>x</b> in it.");
  await expect(text.locator("b")).toHaveCount(0);

  await tabs.getByRole("tab", { name: "Headers" }).click();
  const headers = page.getByTestId("view-headers");
  await expect(headers).toContainText(`Subject: ${subject}`);
  await expect(headers).toContainText(`From: `);
  await expect(headers).toContainText(`To: reader-${suffix}@example.com`);
  await expectAccessible(page, "a message's headers view");
});
