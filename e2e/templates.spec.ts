import { expect, test } from "@playwright/test";
import { expectAccessible, openPage, OWNER_STATE } from "./helpers";

test.use({ storageState: OWNER_STATE });

/**
 * A person writes a template in the console: creates it from the starter source, sees the draft's
 * live preview rendered by the sandbox, reads a render error that names its field, publishes version
 * 2, compares the versions and rolls back to version 1.
 */
test("templates: create, live preview with errors in words, publish, diff, roll back", async ({ page }) => {
  test.slow(); // a journey through several pages; sandbox renders and a broadcast take seconds each
  await page.goto("/");
  await openPage(page, "Templates");
  await expect(page.getByRole("heading", { name: "Templates", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "New template" });
  await form.getByLabel("Name").fill("E2E welcome");
  await form.getByRole("button", { name: "Create template" }).click();
  await expect(page.getByRole("heading", { name: "E2E welcome", level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}$/);

  // The current version renders in the preview: subject filled from the schema's default.
  const preview = page.getByRole("region", { name: "Preview" });
  await expect(preview.getByText("Subject: Welcome, there")).toBeVisible();
  const frame = page.frameLocator('iframe[title="Rendered email preview"]');
  await expect(frame.getByText("Hello there")).toBeVisible();
  await expectAccessible(page, "a template page");

  // Typing changes the preview after a pause.
  const values = page.getByLabel("Preview variables (JSON)");
  await values.fill('{"name": "Ada"}');
  await expect(frame.getByText("Hello Ada")).toBeVisible();
  await expect(preview.getByText("Subject: Welcome, Ada")).toBeVisible();

  // A variable the schema refuses and a source that does not compile are said in words, with the field.
  await values.fill(`{"name": ${JSON.stringify("x".repeat(100))}}`);
  await expect(preview.getByRole("alert")).toContainText("variables.name");
  await values.fill('{"name": "Ada"}');
  const source = page.getByLabel("Source (react-email TSX)");
  const original = await source.inputValue();
  await source.fill('import fs from "node:fs";\nexport default () => null;');
  await expect(preview.getByRole("alert")).toContainText("Source (draft.source)");
  await expect(source).toHaveAttribute("aria-invalid", "true");
  await expectAccessible(page, "a template page with a preview error");

  // Publish version 2 with a new greeting.
  await source.fill(original.replace("Hello {name}", "Hi again {name}"));
  await expect(frame.getByText("Hi again Ada")).toBeVisible();
  await page.getByLabel("Notes (optional)").fill("Warmer greeting");
  await page.getByRole("button", { name: "Publish new version" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Published version 2." })).toBeVisible();
  const versions = page.getByRole("table", { name: "Versions, newest first" });
  await expect(versions.locator("tbody tr").first()).toContainText("v2");
  await expect(versions.locator("tbody tr").first()).toContainText("current");

  // The diff shows the changed line; roll back makes version 1 current.
  const diff = page.getByLabel("Line diff");
  await expect(diff).toContainText("Hi again {name}");
  await expect(diff).toContainText("Hello {name}");
  await page.getByRole("button", { name: "Make current: version 1" }).click();
  await expect(versions.locator("tbody tr").nth(1)).toContainText("current");
  await expectAccessible(page, "a template page after roll back");
});

/** Contacts: create one with an email handle, add a second handle and make it primary, search for it, remove a handle. */
test("contacts: create, handles, primary, search, history", async ({ page }) => {
  test.slow(); // a journey through several pages; sandbox renders and a broadcast take seconds each
  await page.goto("/contacts");
  await expect(page.getByRole("heading", { name: "Contacts", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "New contact" });
  await form.getByLabel("Name").fill("Grace Hopper");
  await form.getByLabel("Alias (optional)").fill("grace");
  await form.getByLabel("First handle (optional)").fill("grace@example.com");
  await form.getByRole("button", { name: "Create contact" }).click();
  await expect(page.getByRole("heading", { name: "Grace Hopper", level: 1 })).toBeVisible();
  const handles = page.getByRole("table", { name: "Handles" });
  await expect(handles.getByRole("row", { name: /grace@example\.com/ })).toContainText("primary");

  const add = page.getByRole("form", { name: "Add a handle" });
  await add.getByLabel("Value").fill("grace@navy.example.com");
  await add.getByLabel("Label (optional)").fill("work");
  await add.getByRole("button", { name: "Add handle" }).click();
  await expect(handles.getByRole("row", { name: /grace@navy\.example\.com/ })).toBeVisible();
  await page.getByRole("button", { name: "Make primary: grace@navy.example.com" }).click();
  await expect(handles.getByRole("row", { name: /grace@navy\.example\.com/ })).toContainText("primary");
  await expect(
    handles.getByRole("row", { name: /grace@example\.com/ }).getByText("primary", { exact: true }),
  ).toHaveCount(0);
  // A bad value is refused in words beside the field.
  await add.getByLabel("Value").fill("not an address");
  await add.getByRole("button", { name: "Add handle" }).click();
  await expect(add.getByRole("alert").first()).toBeVisible();
  await expect(page.getByText("No messages yet")).toBeVisible();
  await expectAccessible(page, "a contact page");

  await page.getByRole("button", { name: "Remove grace@example.com" }).click();
  const removeHandle = page.getByRole("dialog", { name: "Remove grace@example.com from this contact?" });
  await expectAccessible(page, "the remove handle dialog");
  await removeHandle.getByRole("button", { name: "Remove handle" }).click();
  await expect(handles.getByRole("row", { name: /grace@example\.com/ })).toHaveCount(0);

  await page.goto("/contacts");
  await page.getByRole("searchbox", { name: "Search" }).fill("navy");
  await expect(page).toHaveURL(/q=navy/);
  await expect(page.getByRole("table", { name: "Contacts" }).getByRole("link", { name: "Grace Hopper" })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search" }).fill("nobody-matches-this");
  await expect(page.getByText("No contacts match “nobody-matches-this”")).toBeVisible();
  await expectAccessible(page, "the contacts page");
});
