import { expect, test } from "@playwright/test";
import { detailPages, expectAccessible, OWNER_STATE } from "./helpers";

/**
 * Dark mode (the `dark` project: prefers-color-scheme: dark): every console page, signed in as the
 * setup's owner, passes axe (no serious or critical WCAG 2 A/AA violation, colour contrast included).
 */
test.use({ storageState: OWNER_STATE });

const PAGES = [
  "/",
  "/inboxes",
  "/threads",
  "/messages",
  "/domains",
  "/api-keys",
  "/webhooks",
  "/events",
  "/audit-log",
  "/workflows",
  "/members",
  "/settings",
  "/files",
  "/templates",
  "/contacts",
  "/audiences",
  "/agents",
  "/budgets",
  "/compliance",
];

test("dark mode: every console page passes axe", async ({ page }) => {
  test.setTimeout(600_000); // every console page and its detail pages, axe on each (over 3 minutes on a busy machine)
  for (const path of [...PAGES, ...(await detailPages(page.request))]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBeLessThan(400);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    await expectAccessible(page, `${path} (dark)`);
  }
  // A message and a thread page.
  await page.goto("/messages");
  await page.getByRole("table", { name: "Messages" }).locator("tbody tr").first().getByRole("link").first().click();
  await expect(page.getByTestId("delivery-status").first()).toBeVisible();
  await expectAccessible(page, "message (dark)");
});

test("dark mode: the API reference passes axe", async ({ page }) => {
  test.slow();
  expect((await page.goto("/docs/api"))?.status()).toBe(200);
  await expectAccessible(page, "/docs/api (dark)");
  expect((await page.goto("/docs/api/webhooks"))?.status()).toBe(200);
  await page.locator("article#createWebhook details > summary").first().click();
  await expectAccessible(page, "/docs/api/webhooks (dark)");
});
