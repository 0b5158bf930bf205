import { expect, type Page, test } from "@playwright/test";
import { createInbox, expectAccessible, OWNER_STATE, ownerAuth, sendEmail } from "./helpers";

test.use({ storageState: OWNER_STATE });

/**
 * An inbox's verification waits, extraction schema and quarantine in the console: a pending wait
 * is cancelled; the schema editor's test pane runs a draft on a pasted message (validated, then
 * errors) and saves it; a message that failed the schema is released from the quarantine view.
 * Each page passes axe in light and dark mode and nothing scrolls sideways at 390 px.
 */
async function checkPage(page: Page, what: string) {
  await expectAccessible(page, what);
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} at 390 px`).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("inbox automation: cancel a wait, test and save a schema, release a quarantined message", async ({ page }) => {
  test.setTimeout(180_000);
  const inbox = await createInbox(page.request, `auto-${Date.now()}`);
  const source = await createInbox(page.request, `auto-src-${Date.now()}`);

  // Waits: a pending one, cancelled from the list.
  const wait = await page.request.post(`/v1/inboxes/${inbox.id}/waits`, {
    headers: ownerAuth(),
    data: { timeoutSec: 600, fromHint: "example.com" },
  });
  expect(wait.status(), await wait.text()).toBe(201);
  await page.goto(`/inboxes/${inbox.id}`);
  await page.getByRole("link", { name: "Verification waits" }).click();
  const waits = page.getByRole("table", { name: "Verification waits" });
  await expect(waits).toContainText("pending");
  await checkPage(page, "waits");
  await waits.getByRole("button", { name: /^Cancel wait/ }).click();
  await expect(waits).toContainText("expired");

  // Schema: the test pane on a draft, then saved.
  await page.goto(`/inboxes/${inbox.id}/schema`);
  await page.getByLabel("Schema (JSON)").fill('{"orderId": {"type": "integer", "required": true}, "paid": "boolean"}');
  const pane = page.getByRole("form", { name: "Test the schema" });
  await pane.getByLabel("Test message (text)").fill("Order ID: 42\nPaid: yes");
  await pane.getByRole("button", { name: "Run extraction" }).click();
  const result = page.getByRole("region", { name: "Extraction result" });
  await expect(result).toContainText("validated");
  await expect(result).toContainText('"orderId": 42');
  await pane.getByLabel("Test message (text)").fill("Order ID: soon");
  await pane.getByRole("button", { name: "Run extraction" }).click();
  await expect(result).toContainText("quarantined");
  await expect(result).toContainText("orderId");
  await checkPage(page, "schema editor");
  await page.getByRole("button", { name: "Save schema" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  // Quarantine: a message that fails the schema is held, then released.
  await sendEmail(page.request, { inboxId: source.id, to: inbox.address, subject: "Held order", text: "Order: none" });
  await page.goto(`/inboxes/${inbox.id}/quarantine`);
  const held = page.getByRole("table", { name: "Quarantined messages" });
  await expect(held).toContainText("Held order");
  await checkPage(page, "quarantine");
  await held.getByRole("button", { name: "Release Held order" }).click();
  await expect(page.getByText("Nothing held")).toBeVisible();
  const list = await page.request.get(`/v1/messages?inboxId=${inbox.id}`, { headers: ownerAuth() });
  expect((await list.json()).messages[0].extractionStatus).toBe("passthrough");
});
