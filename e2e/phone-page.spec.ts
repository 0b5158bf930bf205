import { expect, test } from "@playwright/test";
import { createInbox, expectAccessible, OWNER_STATE, ownerAuth } from "./helpers";

/**
 * The console's Phone page on the simulated carrier: provision a number from the search, bind it to
 * an inbox and an agent, set its inbound assistant, place a call with the page's form and watch it
 * reach "Completed" with a transcript on the call page (refreshed live), then release the number. (Not `phone.spec.ts`: that is the phone-width suite.)
 */
test.use({ storageState: OWNER_STATE });

test("phone page: provision a number, bind it to an inbox and an agent, set its assistant, a call placed from the form completes with a transcript, release", async ({
  page,
  request,
}) => {
  test.slow();
  const inbox = await createInbox(request, `phone-${Date.now().toString(36)}`);

  await page.goto("/phone");
  await expect(page.getByRole("heading", { name: "Phone", level: 1 })).toBeVisible();
  const search = page.getByRole("form", { name: "Search available numbers" });
  await search.getByLabel("Country").selectOption("US");
  await search.getByLabel("Type").selectOption("local");
  await search.getByRole("button", { name: "Search" }).click();
  const provision = page
    .getByRole("table", { name: "Available numbers" })
    .getByRole("button", { name: /^Provision \+/ })
    .first();
  const number = ((await provision.getAttribute("aria-label")) ?? "").replace("Provision ", "");
  expect(number).toMatch(/^\+1\d{3}5550\d{3}$/);
  await provision.click();
  await expect(page.getByRole("status").filter({ hasText: `${number} is provisioned and active` })).toBeVisible();
  await expectAccessible(page, "/phone with search results");

  const row = page.getByRole("table", { name: "Phone numbers" }).getByRole("row").filter({ hasText: number });
  await expect(row).toContainText("Active");
  await expect(row).toContainText("Not bound");
  await row.getByRole("combobox", { name: `Inbox of ${number}` }).selectOption({ label: inbox.address });
  await row.getByRole("button", { name: `Save inbox of ${number}` }).click();
  await expect(row.getByRole("link", { name: inbox.address })).toBeVisible();

  const listed = await request.get("/v1/phone/numbers", { headers: ownerAuth() });
  expect(listed.status(), await listed.text()).toBe(200);
  const bound = (await listed.json()).data.find((n: { phoneNumber: string }) => n.phoneNumber === number);
  expect(bound.inboxId).toBe(inbox.id);

  // Bound to an agent as well (answers calls to the number).
  const display = `Front desk ${Date.now().toString(36)}`;
  const agent = await request.post("/v1/agents", { headers: ownerAuth(), data: { display } });
  expect(agent.ok(), await agent.text()).toBe(true);
  const agentId = (await agent.json()).agent.id as string;
  await page.reload();
  await row.getByRole("combobox", { name: `Agent of ${number}` }).selectOption({ label: display });
  await row.getByRole("button", { name: `Save agent of ${number}` }).click();
  await expect(row.getByRole("link", { name: `Agent ${display}` })).toBeVisible();

  // The inbound assistant: its fields saved through PATCH, an emptied one back to the default.
  await row.getByText("Inbound assistant", { exact: false }).first().click();
  const assistant = row.getByRole("form", { name: `Inbound assistant of ${number}` });
  await assistant.getByLabel("Instructions").fill("Take a message for the front desk.");
  await assistant.getByLabel("Greeting").fill("Front desk, how can I help?");
  await assistant.getByLabel("Voice").selectOption("cedar");
  await assistant.getByLabel("Language").fill("en-GB");
  await assistant.getByRole("button", { name: `Save assistant of ${number}` }).click();
  await expect(assistant.getByRole("status").filter({ hasText: "is saved" })).toBeVisible();
  await expectAccessible(page, "/phone with the assistant open");
  const saved = await (await request.get(`/v1/phone/numbers/${bound.id}`, { headers: ownerAuth() })).json();
  expect(saved).toMatchObject({
    agentId,
    inboxId: inbox.id,
    inboundInstructions: "Take a message for the front desk.",
    inboundGreeting: "Front desk, how can I help?",
    inboundVoice: "cedar",
    inboundLanguage: "en-GB",
  });

  // A call placed with the page's form (POST /v1/phone/calls through the same operation) opens its page.
  const to = "+13125550123";
  const place = page.getByRole("form", { name: "Place a call" });
  await place.getByLabel("From").selectOption({ label: number });
  await place.getByLabel("To").fill(to);
  await place.getByLabel("Instructions").fill("Confirm tomorrow's 10:00 appointment.");
  await place.getByRole("button", { name: "Place call" }).click();
  await expect(page).toHaveURL(/\/phone\/calls\/[0-9a-f-]{36}$/);
  const callId = page.url().split("/").at(-1) ?? "";
  const call = await (await request.get(`/v1/phone/calls/${callId}`, { headers: ownerAuth() })).json();
  expect(call).toMatchObject({ fromNumberId: bound.id, to, direction: "outbound" });
  // No reload here: the page refreshes itself every 2 s until the call is final.
  await expect(page.getByTestId("call-status")).toHaveText("Completed", { timeout: 60_000 });
  await expect(page.getByTestId("call-timeline")).toContainText("Ringing");
  await expect(page.getByTestId("call-timeline")).toContainText("In progress");
  await expect(page.getByTestId("call-transcript").getByRole("listitem").first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Summary" })).toBeVisible();
  await expect(page.locator("audio[controls]")).toHaveAttribute("src", /\/files\/calls\/.+\/recording\?/);
  await expectAccessible(page, "call page (light)");
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, "call page (dark)");
  await page.emulateMedia({ colorScheme: "light" });

  await page.goto("/phone");
  const numberRow = page.getByRole("table", { name: "Phone numbers" }).getByRole("row").filter({ hasText: number });
  await numberRow.getByRole("button", { name: `Release ${number}` }).click();
  const dialog = page.getByRole("dialog", { name: `Release ${number}?` });
  await dialog.getByRole("button", { name: "Release number" }).click();
  await expect(numberRow).toContainText(/Releasing|Released/);
  await expect(numberRow.getByRole("button", { name: `Release ${number}` })).toHaveCount(0);
});
