import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { createInbox, expectAccessible, openPage, OWNER_STATE, ownerAuth, sendEmail } from "./helpers";

test.use({ storageState: OWNER_STATE });

/**
 * The trust pages: a person sets the account's budget and sees its usage bar and its tripped state;
 * downloads the audit export and has the page verify the downloaded file ("Valid"); erases an
 * address after typing it again, waits for the job and downloads its signed deletion certificate.
 */
test("budgets: set one, see its usage bar, re-save one field keeping the others, trip it, delete it", async ({
  page,
}) => {
  await page.goto("/");
  await openPage(page, "Budgets");
  await expect(page.getByRole("heading", { name: "Budgets", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "Set a budget" });
  await form.getByLabel("Recipients per day (rolling 24 hours)").fill("100000");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByRole("status")).toHaveText("Saved the account's budget.");
  const row = page.getByTestId("budget-row").filter({ hasText: "The account" });
  await expect(row.getByRole("progressbar", { name: "Last 24 hours", exact: true })).toBeVisible();
  await expect(row).toContainText(/\d+ of 100,000 recipients/);
  await expect(row).toContainText("within limits");
  await expectAccessible(page, "budgets");

  // Re-saving one field keeps the others: the form starts from the current limits, and a limit set
  // elsewhere after the page was read (here through the API) survives a save of another field.
  await page.reload();
  await expect(form.getByLabel("Recipients per day (rolling 24 hours)")).toHaveValue("100000");
  const put = await page.request.put("/v1/budgets", {
    headers: ownerAuth(),
    data: { scope: "account", limits: { maxSendsPerDay: 100000, maxSpendPerDayCents: 90000 } },
  });
  expect(put.status(), await put.text()).toBe(200);
  await form.getByLabel("Recipients per hour").fill("5000");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByRole("status")).toHaveText("Saved the account's budget.");
  await expect(row.getByRole("progressbar", { name: "Last hour", exact: true })).toBeVisible();
  await expect(row.getByRole("progressbar", { name: "Last 24 hours", exact: true })).toBeVisible();
  await expect(row.getByRole("progressbar", { name: "Paid, last 24 hours" })).toBeVisible();
  await expect(form.getByLabel("Paid spend per day (US cents)")).toHaveValue("90000");

  // A limit of 0 refuses every send: the budget shows as tripped.
  await form.getByLabel("Recipients per day (rolling 24 hours)").fill("0");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(row).toContainText("tripped");
  await expect(row).toContainText("recipients per day reached");

  // Delete it (other specs send), through the confirmation dialog.
  await row.getByRole("button", { name: "Delete the budget of the account" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete budget" }).click();
  await expect(page.getByTestId("budget-row").filter({ hasText: "The account" })).toHaveCount(0);
});

test("compliance: download the audit export and verify it; erase an address and download its certificate", async ({
  page,
}, testInfo) => {
  test.slow(); // the erasure runs as a durable job; the page re-reads until it completes
  const inbox = await createInbox(page.request, `trust-${Date.now()}`);
  const subject = `erase-me-${Date.now()}@example.com`;
  await sendEmail(page.request, { inboxId: inbox.id, to: subject, subject: "Private matter", text: "to be erased" });

  await page.goto("/");
  await openPage(page, "Compliance");
  await expect(page.getByRole("heading", { name: "Compliance", level: 1 })).toBeVisible();
  await expect(page.getByRole("table", { name: "Subprocessors" }).or(page.getByText("No subprocessors"))).toBeVisible();
  await expectAccessible(page, "compliance");

  // Export: a JSON download of the chain's pages.
  const exported = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download export (JSON)" }).click();
  const download = await exported;
  expect(download.suggestedFilename()).toMatch(/^audit-export-.*\.json$/);
  const file = testInfo.outputPath("audit-export.json");
  await download.saveAs(file);
  const pages = JSON.parse(fs.readFileSync(file, "utf8")).pages;
  expect(pages[0].manifest).toMatchObject({ type: "svc.audit.manifest.v1", alg: "EdDSA" });
  await expect(page.getByText(/^Downloaded \d+ rows in 1 page\.$/)).toBeVisible();

  // Verify the downloaded file with the CLI's verifier: valid, in words.
  const verify = page.getByRole("form", { name: "Verify an export" });
  await verify.getByLabel("Export file (optional)").setInputFiles(file);
  await verify.getByRole("button", { name: "Verify" }).click();
  const result = page.getByTestId("verify-result");
  await expect(result).toContainText("Valid: chain intact");
  await expect(result).toContainText("manifest signature valid");
  await expect(result).toContainText("Checked the file you chose");

  // Erase the address: typed again in the dialog before the button is enabled.
  const erase = page.getByRole("region", { name: "Erase an address" });
  await erase.getByLabel("Email address to erase").fill(subject);
  await erase.getByRole("button", { name: "Erase…" }).click();
  const dialog = page.getByRole("dialog", { name: `Erase ${subject}?` });
  const confirm = dialog.getByRole("button", { name: "Erase for good" });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${subject} to confirm`).fill(subject);
  await confirm.click();
  await expect(erase.getByRole("status")).toContainText(`Erasure of ${subject} started`);

  // The job completes (the page re-reads while it runs) with its certificate.
  const job = page.getByTestId("compliance-job").first();
  await expect(job).toContainText("completed", { timeout: 45_000 });
  await expect(job).toContainText("1 message");
  await expect(job).not.toContainText(subject);
  const saved = page.waitForEvent("download");
  await job.getByRole("button", { name: /^Download certificate of erasure / }).click();
  const certificate = JSON.parse(fs.readFileSync(await (await saved).path(), "utf8"));
  expect(certificate).toMatchObject({ type: "svc.deletion_certificate.v1", kind: "erasure", alg: "EdDSA" });
  expect(typeof certificate.signature).toBe("string");

  // The chain as it is now still verifies: the erasure's gap is explained by its certificate.
  await verify.getByLabel("Export file (optional)").setInputFiles([]);
  await verify.getByRole("button", { name: "Verify" }).click();
  await expect(result).toContainText("Checked the chain exported just now");
  await expect(result).toContainText("Valid: chain intact");
  await expectAccessible(page, "compliance with a job and a verification");
});
