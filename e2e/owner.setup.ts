import { expect, test as setup } from "@playwright/test";
import { SHARED_DOMAIN } from "./env";
import {
  ALICE,
  BOB,
  createInbox,
  expectAccessible,
  HELLO_SUBJECT,
  openPage,
  ORG,
  OWNER,
  OWNER_STATE,
  saveOwnerKey,
  sendEmail,
} from "./helpers";

/**
 * The `setup` project, before every other one: the first run of a fresh install. The first visit
 * lands on sign-up; the owner signs up, creates the organization, and creates an admin API key in
 * the console, copies it once and uses it. With that key it creates two inboxes and one message
 * between them, so the independent tests that follow (console, phone, dark) have data. The owner's
 * cookies are saved in OWNER_STATE for them.
 */
setup(
  "first run: sign up, organization, an API key copied once and used; inboxes and a message",
  async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);

    await setup.step("a fresh install opens on sign-up; the form speaks the API's schema", async () => {
      await page.goto("/");
      await expect(page).toHaveURL(/\/sign-up/);
      await expect(page.getByRole("heading", { name: "Create your account" })).toBeVisible();
      await page.goto("/sign-in");
      await expectAccessible(page, "sign-in");
      await page.getByRole("link", { name: "Create an account" }).click();
      await expect(page.getByRole("heading", { name: "Create your account" })).toBeVisible();
      await expectAccessible(page, "sign-up");
      await page.getByLabel("Email").fill("not-an-email");
      await page.getByLabel("Password").fill("short");
      await page.getByRole("button", { name: "Create account" }).click();
      await expect(page.getByText("Enter a valid email address.")).toBeVisible();
    });

    await setup.step("sign up and create the first organization", async () => {
      await page.getByLabel("Name").fill(OWNER.name);
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel("Password").fill(OWNER.password);
      await page.getByRole("button", { name: "Create account" }).click();
      await expect(page.getByRole("heading", { name: "Create your organization" })).toBeVisible();
      await expectAccessible(page, "onboarding");
      await page.getByLabel("Organization name").fill(ORG);
      await page.getByRole("button", { name: "Create organization" }).click();
      await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
      await expect(page.getByRole("combobox", { name: "Organization" })).toContainText(ORG);
    });

    await setup.step("create an API key, copy its secret once and use it against /v1/whoami", async () => {
      await openPage(page, "API keys");
      await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
      await page.getByLabel("Name", { exact: true }).fill("e2e key");
      // The picker offers the scopes some operation needs (with letters built, that is every scope), with presets.
      await expect(page.getByRole("checkbox", { name: "letters:send", exact: true })).toHaveCount(1);
      await page.getByRole("button", { name: "Full access" }).click();
      await expect(page.getByRole("checkbox", { name: "admin", exact: true })).toBeChecked();
      await page.getByRole("button", { name: "Create key" }).click();
      const secretBox = page.getByTestId("new-key-secret");
      await expect(secretBox).toBeVisible();
      const secret = (await secretBox.textContent())?.trim() ?? "";
      expect(secret).toMatch(/^svc_(live|test)_/);
      await secretBox.locator("xpath=..").getByRole("button", { name: /Copy/ }).first().click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      const whoami = await page.request.get("/v1/whoami", { headers: { Authorization: `Bearer ${secret}` } });
      expect(whoami.status()).toBe(200);
      expect((await whoami.json()).organization.role).toBe("owner");
      saveOwnerKey(secret);
      await page.reload();
      await expect(page.getByTestId("new-key-secret")).toHaveCount(0);
      await expect(page.getByText("e2e key")).toBeVisible();
    });

    await setup.step("two inboxes and a message from one to the other, through the API", async () => {
      const alice = await createInbox(page.request, ALICE);
      await createInbox(page.request, BOB);
      await sendEmail(page.request, {
        inboxId: alice.id,
        to: `${BOB}@${SHARED_DOMAIN}`,
        subject: HELLO_SUBJECT,
        text: "Hi Bob, this is Alice.",
      });
    });

    await context.storageState({ path: OWNER_STATE });
  },
);
