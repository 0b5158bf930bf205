import { expect, test } from "@playwright/test";
import { ALICE, expectAccessible, HELLO_SUBJECT, OWNER_STATE } from "./helpers";

test.use({ storageState: OWNER_STATE });

/**
 * One truthful status (issue 28): the setup's outbound message from Alice to Bob (inbox to inbox,
 * delivered at once) reads the same in the messages list, on its page (badge, details, timeline)
 * and in the conversation; an outbound message shows when it was sent, never a received time, and
 * no "not reported yet" sits beside an outcome.
 */
test("a message's status agrees in the list, on its page and in the conversation", async ({ page }) => {
  await page.goto(`/messages?direction=outbound&q=${encodeURIComponent(HELLO_SUBJECT)}`);
  const row = page.getByRole("table", { name: "Messages" }).locator("tbody tr").first();
  const listed = (await row.getByTestId("delivery-status").innerText()).trim();
  await expect(row).toContainText("Sent");
  await row.getByRole("link", { name: HELLO_SUBJECT }).click();

  await expect(page.getByRole("heading", { name: HELLO_SUBJECT, level: 1 })).toBeVisible();
  for (const badge of await page.getByTestId("delivery-status").all()) await expect(badge).toHaveText(listed);
  const details = page.locator("dl");
  await expect(details.getByText("Sent", { exact: true })).toBeVisible();
  await expect(details.getByText("Received", { exact: true })).toHaveCount(0);
  const steps = page.getByTestId("timeline-step");
  await expect(steps.first()).toContainText("Created");
  if (listed !== "sent") {
    // An outcome: the timeline ends with it and nothing says it is still waiting for one.
    await expect(page.getByTestId("timeline-pending")).toHaveCount(0);
    await expect(page.getByText("has not reported an outcome")).toHaveCount(0);
    await expect(page.getByText("No delivery events")).toHaveCount(0);
  }
  await expectAccessible(page, "an outbound message");

  await page.getByRole("link", { name: "Open the conversation" }).click();
  const card = page
    .getByRole("article")
    .filter({ hasText: `${ALICE}@` })
    .first();
  await expect(card.getByTestId("delivery-status")).toHaveText(listed);
});
