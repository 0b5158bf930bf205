import { expect, test } from "@playwright/test";
import { expectAccessible, openPage, OWNER_STATE } from "./helpers";

test.use({ storageState: OWNER_STATE });

/** A person uploads a file on the files page, sees it scanned clean, shares it and downloads it through the link. */
test("files: upload with a progress bar, scan status, share link with copy buttons, download through /d/", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/");
  await openPage(page, "Files");
  await expect(page.getByRole("heading", { name: "Files" })).toBeVisible();
  await page
    .getByLabel("Choose a file")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello from the console\n") });
  await expect(page.getByRole("progressbar", { name: "Upload of notes.txt" })).toBeVisible();
  await expect(page.getByText("uploaded, scanning…")).toBeVisible();
  const row = page.getByRole("row", { name: /notes\.txt/ });
  await expect(row.getByText("clean")).toBeVisible({ timeout: 30_000 });
  await expectAccessible(page, "the files page");

  await row.getByRole("link", { name: "notes.txt" }).click();
  await page.getByRole("button", { name: "Create share link" }).click();
  await expect(page.getByText("Share link created")).toBeVisible();
  await page.getByRole("button", { name: /Copy download link/ }).click();
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toMatch(/\/d\/[A-Za-z0-9_-]+$/);
  const res = await page.request.get(url);
  expect(res.status()).toBe(200);
  expect(await res.text()).toBe("hello from the console\n");
  await page.reload();
  await expect(page.getByRole("row", { name: /shr_/ }).getByText("1 downloads")).toBeVisible();
});
