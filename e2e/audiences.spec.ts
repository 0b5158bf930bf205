import { expect, test } from "@playwright/test";
import { ALICE, expectAccessible, OWNER_STATE } from "./helpers";

test.use({ storageState: OWNER_STATE });

/**
 * A person imports a small CSV into a new audience (progress bar, a bad row skipped), removes a
 * member, sends a text broadcast from an inbox and watches its progress bar reach completed (the
 * outbox relay runs in the app server, so the messages are sent to the embedded transport).
 */
test("audiences: CSV import with progress, remove a member, broadcast with live progress to completed", async ({
  page,
}) => {
  test.slow(); // a journey through several pages; sandbox renders and a broadcast take seconds each
  await page.goto("/audiences");
  await expect(page.getByRole("heading", { name: "Audiences", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "New audience" });
  const name = `E2E list ${Date.now()}`;
  await form.getByLabel("Name").fill(name);
  await form.getByRole("button", { name: "Create audience" }).click();
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();

  const csv = 'email,name\nada@example.com,Ada\nbob@example.com,"Bob, Jr."\nnot-an-address,Nobody\ncy@example.com,Cy\n';
  await page
    .getByLabel("Choose a CSV file")
    .setInputFiles({ name: "members.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(page.getByRole("progressbar", { name: "Import of members.csv" })).toBeVisible();
  await expect(page.getByText("3 of 3 rows — done: 3 new, 0 already members")).toBeVisible();
  await expect(page.getByText("1 row skipped")).toBeVisible();
  const members = page.getByRole("table", { name: "Members" });
  await expect(members.getByRole("row", { name: /bob@example\.com/ })).toContainText("Bob, Jr.");
  await expectAccessible(page, "an audience page");

  await page.getByRole("button", { name: "Remove cy@example.com" }).click();
  await page
    .getByRole("dialog", { name: "Remove cy@example.com from this audience?" })
    .getByRole("button", { name: "Remove member" })
    .click();
  await expect(members.getByRole("row", { name: /cy@example\.com/ })).toHaveCount(0);

  const send = page.getByRole("form", { name: "Send broadcast" });
  await send.getByLabel("From inbox").selectOption({ label: `${ALICE}@svc.localhost` });
  await send.getByLabel("Subject").fill("E2E news");
  await send.getByRole("textbox", { name: "Text" }).fill("Hello from the broadcast.");
  await send.getByRole("button", { name: "Send broadcast" }).click();
  await expect(page).toHaveURL(/\/broadcasts\/bcast_/);
  await expect(page.getByRole("progressbar", { name: "Broadcast progress" })).toBeVisible();
  await expect(page.getByTestId("broadcast-progress")).toHaveText("2 of 2 members done (100%)", { timeout: 60_000 });
  await expect(page.getByText("completed", { exact: true })).toBeVisible();
  await expect(page.getByTestId("count-sent")).toHaveText("2");
  await expect(page.getByRole("heading", { name: "E2E news", level: 1 })).toBeVisible();
  await expect(page.getByText("Hello from the broadcast.")).toBeVisible(); // the preview
  await expect(page.getByRole("table", { name: "Members' messages" }).locator("tbody tr")).toHaveCount(2);
  await expectAccessible(page, "a broadcast page");

  // A test to one address goes through the send operation; the audience's counts do not move.
  const test1 = page.getByRole("form", { name: "Send a test" });
  await test1.getByLabel("Address").fill("tester@example.com");
  await test1.getByRole("button", { name: "Send a test" }).click();
  await expect(test1.getByRole("status")).toContainText("Test sent to tester@example.com");
  await expect(page.getByTestId("count-sent")).toHaveText("2");
  await test1.getByRole("link", { name: "Open the message" }).click();
  await expect(page.getByRole("heading", { name: "E2E news", level: 1 })).toBeVisible();
  await expect(page.getByText("tester@example.com").first()).toBeVisible();

  // The Broadcasts page lists it with its progress.
  await page.goto("/broadcasts");
  const row = page
    .getByRole("table", { name: "Broadcasts" })
    .getByRole("row", { name: /E2E news/ })
    .first();
  await expect(row.getByTestId("broadcast-counts")).toHaveText("2 sent · 0 failed of 2");
  await expect(row.getByRole("link", { name: name })).toBeVisible();
  await expectAccessible(page, "the broadcasts page");
});
