import { expect, type Page, test } from "@playwright/test";
import { detailPages, expectAccessible, OWNER_STATE, ownerAuth } from "./helpers";

/**
 * The console at phone width (390×844, the `phone` project; signed in as the owner the `setup`
 * project created, with its inboxes and message): the navigation collapses behind a Menu button, lists become
 * stacked cards, the newest message is on the first screen, nothing scrolls sideways, and every
 * page passes axe.
 */

async function expectNoSidewaysScroll(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
}

test.use({ storageState: OWNER_STATE });

test("phone width: collapsible navigation, stacked cards, the newest message on the first screen, accessible", async ({
  page,
}) => {
  test.setTimeout(600_000); // every console page and its detail pages, axe on each (over 3 minutes on a busy machine)
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Console" });
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(menu).toBeVisible();
  await expect(nav).toBeHidden();
  await expectAccessible(page, "overview (phone)");
  await expectNoSidewaysScroll(page);

  await menu.click();
  await expect(nav).toBeVisible();
  await nav.getByRole("link", { name: "Messages", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Messages", level: 1 })).toBeVisible();
  await expect(nav).toBeHidden();

  const firstRow = page.locator("table[data-cards] tbody tr").first();
  await expect(firstRow).toBeVisible();
  expect(await firstRow.evaluate((tr) => getComputedStyle(tr).display)).toBe("block");
  const box = await firstRow.boundingBox();
  expect(box && box.y + Math.min(box.height, 120)).toBeLessThanOrEqual(844);
  await expectNoSidewaysScroll(page);
  // Addresses wrap only at "@" or a separator (ellipsized past the card), never mid-word.
  for (const address of await firstRow.getByTestId("address").all()) {
    expect(await address.evaluate((el) => [getComputedStyle(el).wordBreak, getComputedStyle(el).overflowWrap])).toEqual(
      ["normal", "normal"],
    );
  }
  await expectAccessible(page, "messages (phone)");

  for (const [name, heading] of [
    ["Inboxes", "Inboxes"],
    ["Threads", "Threads"],
    ["API keys", "API keys"],
    ["Webhooks", "Webhooks"],
    ["Domains", "Domains"],
    ["Events", "Events"],
    ["Audit log", "Audit log"],
    ["Members", "Members"],
    ["Settings", "Settings"],
    ["Templates", "Templates"],
    ["Contacts", "Contacts"],
    ["Audiences", "Audiences"],
    ["Broadcasts", "Broadcasts"],
    ["Budgets", "Budgets"],
    ["Compliance", "Compliance"],
    ["Phone", "Phone"],
    ["API reference", "Multi-Channel Messaging Service API"],
  ] as const) {
    await page.getByRole("button", { name: "Menu" }).click();
    await nav.getByRole("link", { name, exact: true }).click();
    await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
    if (name === "API reference") {
      await page.getByRole("navigation", { name: "API resources" }).getByRole("link", { name: "Messages" }).click();
      await expect(page.locator("article#sendMessage")).toBeVisible();
    }
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, `${name} (phone)`);
  }

  for (const path of await detailPages(page.request)) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectAccessible(page, `${path} (phone)`);
  }

  await page.goto("/messages");
  await page.locator("table[data-cards] tbody tr").first().getByRole("link").first().click();
  await expect(page.getByTestId("delivery-status").first()).toBeVisible();
  await expectNoSidewaysScroll(page);
  await expectAccessible(page, "message (phone)");
});

test("phone width: the request log, files, agents and workflow runs fit without sideways scroll", async ({ page }) => {
  // Something on each page: an agent (the files page's bucket and the setup's requests exist already).
  const agent = await page.request.post("/v1/agents", {
    headers: ownerAuth(),
    data: { display: `Phone agent ${Date.now()}`, description: "A long description that must wrap on a phone." },
  });
  expect(agent.ok(), await agent.text()).toBe(true);
  for (const [path, heading] of [
    ["/logs", "Request log"],
    ["/files", "Files"],
    ["/agents", "Agents"],
    ["/workflows", "Workflow runs"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
    await expectNoSidewaysScroll(page);
  }
});
