import { expect, type Page, test } from "@playwright/test";
import { expectAccessible, OWNER_STATE, ownerAuth } from "./helpers";

/**
 * The console's letters (issue 25): a letter template created from the starter and previewed (page 1
 * drawn with the checks over it; text moved into the franking zone fails that check, drawn red); a CSV
 * batch with a row the browser refuses and a row the API refuses, each by its line; a letter's
 * timeline, "Progress one step", Cancel through its dialog and the words when cancel is no longer
 * allowed. Every page under axe in light and dark mode and without sideways scroll at 390 px. The
 * simulated print centre's clock is slow in this run (LETTER_SIM_STEP_MS in playwright.config.ts), so
 * a letter moves only when the test moves it.
 */
test.use({ storageState: OWNER_STATE });

const suffix = Date.now().toString(36);

async function checkPage(page: Page, what: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectAccessible(page, `${what} (${scheme})`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} at 390 px`).toBeLessThanOrEqual(390);
  if (size) await page.setViewportSize(size);
}

test("letters: a template previewed with its checks over the page, a CSV batch with per-row errors, a letter's timeline, progress and cancel", async ({
  page,
}) => {
  test.setTimeout(300_000);
  // A template from the starter, through the console's form.
  await page.goto("/letters/templates");
  await expect(page.getByRole("heading", { name: "Letter templates", level: 1 })).toBeVisible();
  await checkPage(page, "the letter templates with the create form");
  const create = page.getByRole("form", { name: "Create a letter template" });
  await create.getByRole("button", { name: "Create template" }).click();
  await expect(create.getByText("Enter a name")).toBeVisible();
  await create.getByLabel("Name").fill(`Reminder ${suffix}`);
  await create.getByRole("button", { name: "Create template" }).click();
  await expect(page).toHaveURL(/\/letters\/templates\/[0-9a-f-]{36}$/);
  const templateId = page.url().split("/").pop() ?? "";
  await expect(page.getByRole("heading", { name: `Reminder ${suffix}`, level: 1 })).toBeVisible();

  const previewForm = page.getByRole("form", { name: "Preview the letter template" });
  await previewForm.getByRole("button", { name: "Preview", exact: true }).click();
  const preview = page.getByTestId("letter-preview");
  await expect(preview.getByText("Ready to send.")).toBeVisible({ timeout: 60_000 });
  await expect(preview.getByTestId("check-address_window")).toContainText("Pass");
  await expect(preview.locator('[data-box="address_window"]')).toHaveCount(1);
  await expect(preview.locator('[data-box^="fail-"]')).toHaveCount(0);
  // pdf.js drew page 1 in the browser: the canvas takes the page's size at scale 2 (A4: 1190 px wide) and is not blank.
  const canvas = preview.locator("canvas");
  await expect.poll(() => canvas.evaluate((c: HTMLCanvasElement) => c.width)).toBeGreaterThan(1000);
  await expect
    .poll(() =>
      canvas.evaluate((c: HTMLCanvasElement) => {
        const data = c.getContext("2d")?.getImageData(0, 0, c.width, c.height).data ?? [];
        let dark = 0;
        for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) < 128) dark++;
        return dark;
      }),
    )
    .toBeGreaterThan(100);
  await preview.screenshot({ path: test.info().outputPath("preview.png") });
  await checkPage(page, "a letter template's preview");

  // Text in the franking zone: that check fails, says by how much, and its box is drawn red.
  const edit = page.getByRole("form", { name: "Edit the letter template" });
  const html = await edit.getByLabel("HTML").inputValue();
  await edit
    .getByLabel("HTML")
    .fill(html.replace("</body>", '<div style="position:absolute;left:150mm;top:20mm">Tax ID 12345</div></body>'));
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(edit.getByRole("status")).toContainText("Saved.");
  await previewForm.getByRole("button", { name: "Preview", exact: true }).click();
  await expect(preview.getByText("Would be refused.")).toBeVisible({ timeout: 60_000 });
  await expect(preview.getByTestId("check-franking_zone")).toContainText("Fail");
  await expect(preview.getByTestId("check-franking_zone")).toContainText("mm");
  await expect(preview.locator('[data-box="fail-franking_zone"]')).toHaveCount(1);
  await preview.screenshot({ path: test.info().outputPath("preview-failing.png") });
  // Back to the good HTML for the batch.
  await edit.getByLabel("HTML").fill(html);
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(edit.getByRole("status")).toContainText("Saved.");

  // A batch from a CSV: line 3 lacks a city (refused here), line 4 asks for a company the template never prints (refused by the API).
  await page.goto(`/letters/batch?templateId=${templateId}`);
  await expect(page.getByRole("heading", { name: "Letters from a CSV", level: 1 })).toBeVisible();
  const batch = page.getByRole("form", { name: "Send letters from a CSV file" });
  await batch
    .getByLabel("Or paste the CSV")
    .fill(
      [
        "name,company,street,houseNumber,postalCode,city,country,greeting",
        `Erika Mustermann,,Hauptstraße,5,10115,Berlin,DE,Dear Erika ${suffix}`,
        "No City,,Marktplatz,1,80331,,DE,Hello",
        ",Beispiel GmbH,Marktplatz,1,80331,München,DE,Hello",
      ].join("\n"),
    );
  await expect(batch.getByRole("combobox", { name: "City" })).toHaveValue("5");
  await expect(batch.getByTestId("csv-problem")).toHaveCount(1);
  await expect(batch.getByTestId("csv-problem")).toContainText("no city");
  await checkPage(page, "the CSV batch form");
  await batch.getByRole("button", { name: "Send 2 letters" }).click();
  const progress = page.getByTestId("batch-progress");
  await expect(progress.getByText("Completed")).toBeVisible({ timeout: 90_000 });
  await expect(progress).toContainText("1 created, 1 failed");
  await expect(progress.getByTestId("batch-error")).toHaveCount(1);
  await expect(progress.getByTestId("batch-error")).toContainText("Line 4");
  await checkPage(page, "a batch's progress");

  // The letters list: the batch's letter, in test mode.
  await page.goto("/letters");
  await expect(page.getByRole("heading", { name: "Letters", level: 1 })).toBeVisible();
  const row = page.getByTestId("letter-row").filter({ hasText: "Erika Mustermann" }).first();
  await expect(row).toContainText("Test");
  await expect(row).toContainText("Queued");
  await checkPage(page, "the letters list");

  // A letter sent through the API: progress it, cancel it through the dialog.
  const sent = await page.request.post("/v1/letters", {
    headers: ownerAuth(),
    data: {
      templateId,
      templateData: { greeting: "Hello" },
      to: {
        name: `Cancel ${suffix}`,
        street: "Hauptstraße",
        houseNumber: "5",
        postalCode: "10115",
        city: "Berlin",
        country: "DE",
      },
    },
  });
  expect(sent.status(), await sent.text()).toBe(201);
  const letterId = (await sent.json()).id as string;
  await page.goto(`/letters/${letterId}`);
  await expect(page.getByRole("heading", { name: `Letter to Cancel ${suffix}, Berlin, DE`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("timeline-row")).toHaveCount(1);
  await page.getByRole("button", { name: "Progress one step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Moved to processing." })).toBeVisible();
  await expect(page.getByTestId("timeline-row")).toHaveCount(2);
  await checkPage(page, "a letter's page");
  await page.getByRole("button", { name: "Cancel letter" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this letter?" });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, "the cancel dialog");
  await dialog.getByRole("button", { name: "Cancel letter" }).click();
  await expect(page.getByTestId("cancel-refusal")).toHaveText("This letter is already canceled.");
  await expect(page.getByTestId("timeline-row")).toHaveCount(3);
  await expect(page.getByRole("button", { name: "Progress one step" })).toHaveCount(0);

  // The batch's letter moved past processing: no Cancel, and why in words.
  await page.goto("/letters");
  await page.getByTestId("letter-row").filter({ hasText: "Erika Mustermann" }).first().getByRole("link").click();
  await page.getByRole("button", { name: "Progress one step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Moved to processing." })).toBeVisible();
  await page.getByRole("button", { name: "Progress one step" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Moved to printable." })).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel letter" })).toHaveCount(0);
  await expect(page.getByTestId("cancel-refusal")).toContainText("processing has ended");
});
