import { expect, type Page, test } from "@playwright/test";
import { startTelegramFake, type TelegramFake } from "../tests/fakes/telegram";
import { E2E_TELEGRAM_PORT } from "./env";
import { createInbox, expectAccessible, OWNER_STATE, ownerAuth } from "./helpers";

test.use({ storageState: OWNER_STATE });

/**
 * An inbox's connections in the console, against the Telegram Bot API fake on the port the server's
 * TELEGRAM_API_ROOT names: a token Telegram refuses reads as a sentence on the field; a good one
 * connects the bot (its @username shown); a Slack app's install link is minted and copyable; a
 * message sent with buttons shows them (not live) in the conversation with a tap on one; the bot is
 * disconnected last. Axe in light and dark mode, and nothing scrolls sideways at 390 px.
 */
let fake: TelegramFake;
test.beforeAll(async () => {
  fake = await startTelegramFake(E2E_TELEGRAM_PORT);
});
test.afterAll(async () => {
  await fake.close();
});

async function accessibleBothModes(page: Page, what: string) {
  await expectAccessible(page, what);
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: "light" });
}

test("connections: Telegram bot connect (refused token, then a good one), Slack install link, buttons and taps in the thread, disconnect", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const inbox = await createInbox(page.request, `conn-${Date.now()}`);
  const token = `${Date.now() % 1_000_000_000}:E2eTokenE2eTokenE2eToken_1234`;
  const bot = fake.addBot(token, `e2e_${Date.now() % 1_000_000}_bot`);
  const app = await page.request.post("/v1/slack/apps", {
    headers: ownerAuth(),
    data: {
      origin: "byo",
      name: "Helpdesk",
      appId: "A0E2ETEST1",
      clientId: "111.222",
      clientSecret: "s3cret",
      signingSecret: "s1gn",
    },
  });
  expect(app.status(), await app.text()).toBe(200);

  await page.goto(`/inboxes/${inbox.id}`);
  const card = page.getByRole("region", { name: "Telegram bot" });
  await expect(page.getByRole("region", { name: "Email address" })).toContainText(inbox.address);
  await expect(page.getByRole("region", { name: "Phone number" })).toContainText("No number");
  await expect(card).toContainText("No bot connected");

  // A token Telegram refuses: the reason, on the field.
  const form = card.getByRole("form", { name: "Connect a Telegram bot" });
  await form.getByLabel("Bot token").fill("987654321:UnknownToTelegramUnknownToTelegram");
  await form.getByRole("button", { name: "Connect bot" }).click();
  await expect(form.getByRole("alert")).toHaveText(/Telegram refused this bot token/);

  await form.getByLabel("Bot token").fill(token);
  await form.getByRole("button", { name: "Connect bot" }).click();
  await expect(card).toContainText(`@${bot.username}`);
  expect(fake.webhookOf(token)?.url).toMatch(/\/v1\/providers\/telegram\/events$/);

  // Slack: an install link for the organization's app, bound to this inbox, with a copy button.
  const slack = page.getByRole("region", { name: "Slack installations" });
  await slack.getByRole("button", { name: "Get install link" }).click();
  await expect(slack.getByText(/oauth\/v2\/authorize\?client_id=111\.222/)).toBeVisible();
  await expect(slack.getByRole("button", { name: /^Copy link/ })).toBeVisible();
  await accessibleBothModes(page, "inbox connections");
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 720 });

  // A message with buttons, and a tap on one (the fake posts the callback to the bot's webhook).
  const chat = 424242;
  const sent = await page.request.post("/v1/messages", {
    headers: ownerAuth(),
    data: {
      inboxId: inbox.id,
      channel: "telegram",
      to: String(chat),
      text: "Pick one",
      buttons: [[{ text: "Yes", callback: "yes" }], [{ text: "Docs", url: "https://example.com/docs" }]],
    },
  });
  expect(sent.status(), await sent.text()).toBe(200);
  const { id, providerMessageId } = await sent.json();
  const status = await fake.update(token, {
    callback_query: {
      id: "cb1",
      from: { id: 99, first_name: "Tapper" },
      message: {
        message_id: Number(String(providerMessageId).split(":")[1]),
        date: 0,
        chat: { id: chat, type: "private" },
      },
      data: ".yes",
    },
  });
  expect(status).toBe(200);
  const message = (await (await page.request.get(`/v1/messages/${id}`, { headers: ownerAuth() })).json()).message;
  await page.goto(`/threads/${message.threadId}`);
  const article = page.getByRole("article").first();
  await expect(article).toContainText("Telegram");
  await expect(article.getByRole("list", { name: /Buttons/ })).toContainText("Sends callback “yes”");
  await expect(article.getByRole("list", { name: /Buttons/ })).toContainText("Opens https://example.com/docs");
  await expect(article.getByRole("list", { name: "Button taps" })).toContainText("Tapper: Tapped the button");
  await accessibleBothModes(page, "telegram conversation");

  // Disconnect: secondary, confirmed in a dialog.
  await page.goto(`/inboxes/${inbox.id}`);
  await card.getByRole("button", { name: `Disconnect @${bot.username}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Disconnect" }).click();
  await expect(card).toContainText("No bot connected");
  expect(fake.webhookOf(token)).toBeNull();
});
