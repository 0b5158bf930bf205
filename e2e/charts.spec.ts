import { expect, type Page, test } from "@playwright/test";
import { createInbox, expectAccessible, OWNER_STATE, ownerAuth, sendEmail } from "./helpers";

/**
 * The Overview's delivery volume chart (Recharts) with its range switch and data table, in light,
 * dark and at phone width; and the reply box's complaint override. Signed in as the setup's owner.
 */
test.use({ storageState: OWNER_STATE });

const suffix = Date.now().toString(36);

/** Rows of the chart's data table (in the DOM whether or not its disclosure is open). */
const tableRows = (page: Page) => page.getByTestId("overview-volume-table").locator("tbody tr");

test("the overview charts delivery volume by outcome, with tooltips, a data table and a range switch", async ({
  page,
}) => {
  test.slow();
  const inbox = await createInbox(page.request, `chart-${suffix}`);
  for (const to of [`bounce+${suffix}@simulator.amazonses.com`, `success+${suffix}@simulator.amazonses.com`]) {
    await sendEmail(page.request, { inboxId: inbox.id, to, subject: `Chart ${suffix}`, text: "Counted." });
  }
  await page.goto("/");
  const figure = page.getByTestId("overview-volume");
  await expect(figure).toBeVisible();
  await expect(figure).toContainText("in the last 24 hours, per hour");
  const totals = figure.getByRole("list", { name: "Totals by outcome" });
  await expect(totals.getByRole("link", { name: "Bounced" })).toHaveAttribute(
    "href",
    "/messages?direction=outbound&status=bounced",
  );
  await expect(totals.getByRole("link", { name: "Delivered" })).toBeVisible();
  // Recharts drew bars; a bar's tooltip names the outcomes of its hour.
  const bars = page.getByTestId("overview-volume-chart").locator(".recharts-bar-rectangle path");
  await expect(bars.first()).toBeVisible();
  const plot = await page.getByTestId("overview-volume-chart").locator("svg.recharts-surface").first().boundingBox();
  if (!plot) throw new Error("the chart has no box");
  await page.mouse.move(plot.x + plot.width - 12, plot.y + plot.height / 2);
  await expect(page.locator(".recharts-tooltip-wrapper")).toContainText("Bounced");

  // The figures as a table: one row per hour, a column per outcome shown.
  await expect(tableRows(page)).toHaveCount(24);
  await page.getByText("The figures as a table").click();
  const table = page.getByTestId("overview-volume-table");
  await expect(table.getByRole("columnheader", { name: "Hour" })).toBeVisible();
  await expect(table.getByRole("columnheader", { name: "Bounced" })).toBeVisible();
  await expect(tableRows(page).last().getByRole("cell").first()).not.toHaveText("0");
  await expectAccessible(page, "overview with the volume chart");

  // The range switch: 7 days and 30 days by UTC day.
  const ranges = page.getByRole("navigation", { name: "Chart range" });
  await expect(ranges.getByRole("link", { name: "Last 24h", exact: true })).toHaveAttribute("aria-current", "true");
  await ranges.getByRole("link", { name: "Last 7d", exact: true }).click();
  await expect(page).toHaveURL(/\?range=7d$/);
  await expect(ranges.getByRole("link", { name: "Last 7d", exact: true })).toHaveAttribute("aria-current", "true");
  await expect(figure).toContainText("in the last 7 days, per day (UTC)");
  await expect(tableRows(page)).toHaveCount(7);
  await ranges.getByRole("link", { name: "Last 30d", exact: true }).click();
  await expect(page).toHaveURL(/\?range=30d$/);
  await expect(tableRows(page)).toHaveCount(30);
  await expect(page.getByTestId("overview-volume").getByRole("columnheader", { name: "Day (UTC)" })).toBeAttached();

  // Dark mode, then phone width: axe-clean, and the chart fits the screen.
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, "overview chart, dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/?range=7d");
  await expect(bars.first()).toBeVisible();
  const svgWidth = await page
    .getByTestId("overview-volume-chart")
    .locator("svg.recharts-surface")
    .first()
    .evaluate((svg) => svg.getBoundingClientRect().right);
  expect(svgWidth).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await expectAccessible(page, "overview chart, dark, phone");
});

test("the reply box offers to send anyway when the other party complained", async ({ page }) => {
  const inbox = await createInbox(page.request, `replier-${suffix}`);
  const complainer = `complaint+reply-${suffix}@simulator.amazonses.com`;
  const id = await sendEmail(page.request, { inboxId: inbox.id, to: complainer, subject: "First", text: "Hello." });
  const message = await page.request.get(`/v1/messages/${id}`, { headers: ownerAuth() });
  const threadId = (await message.json()).message.threadId as string;
  await page.goto(`/threads/${threadId}`);
  const form = page.getByRole("form", { name: "Reply to this conversation" });
  await form.getByLabel("Reply", { exact: true }).fill("Following up.");
  await form.getByRole("button", { name: "Send reply" }).click();
  await expect(
    form.getByRole("alert").filter({
      hasText: `${complainer} reported an earlier message from this organization as spam, so this send was stopped.`,
    }),
  ).toBeVisible();
  await expect(form.getByText(/ignoreComplaints/)).toHaveCount(0);
  const override = form.getByRole("checkbox", { name: `Send anyway, also to ${complainer}` });
  await expect(override).toBeVisible();
  await expectAccessible(page, "reply complaint override");
  await override.check();
  await form.getByRole("button", { name: "Send reply" }).click();
  await expect(form.getByText(/Reply (sent|queued)\./)).toBeVisible();
  await expect(form.getByTestId("complaint-override")).toHaveCount(0);
});
