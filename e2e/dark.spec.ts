import { expect, test } from "@playwright/test";
import { detailPages, expectAccessible, OWNER_STATE } from "./helpers";

/**
 * Both colour schemes (the `dark` project starts in prefers-color-scheme: dark; each page is checked again
 * after switching to light): every console page, signed in as the setup's owner, passes axe (no serious or
 * critical WCAG 2 A/AA violation, colour contrast and axe's experimental WCAG rules included).
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
  "/logs",
  "/audit-log",
  "/workflows",
  "/members",
  "/settings",
  "/files",
  "/templates",
  "/contacts",
  "/audiences",
  "/broadcasts",
  "/agents",
  "/budgets",
  "/compliance",
  "/phone",
  "/letters",
  "/letters/templates",
  "/letters/batch",
];

test("dark and light mode: every console page passes axe", async ({ page }) => {
  test.setTimeout(900_000); // every console page and its detail pages, axe twice on each (minutes on a busy machine)
  for (const path of [...PAGES, ...(await detailPages(page.request))]) {
    await page.emulateMedia({ colorScheme: "dark" });
    const res = await page.goto(path);
    expect(res?.status(), path).toBeLessThan(400);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    await expectAccessible(page, `${path} (dark)`);
    await page.emulateMedia({ colorScheme: "light" });
    await expectAccessible(page, `${path} (light)`);
  }
  await page.emulateMedia({ colorScheme: "dark" });
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
