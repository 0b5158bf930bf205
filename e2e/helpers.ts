import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { OUTBOX_DIR } from "./env";

/** The first user of the install (console.spec.ts signs them up; later specs sign in as them). */
export const OWNER = { name: "Olive Owner", email: "owner@example.com", password: "owner password 123" };

/** Signs in with the password form and waits for the console. */
export async function signIn(page: Page, account: { email: string; password: string } = OWNER): Promise<void> {
  await page.goto("/sign-in");
  const form = page.getByRole("form", { name: "Sign in with password" });
  await form.getByLabel("Email").fill(account.email);
  await form.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("main")).toBeVisible();
  await expect(page).not.toHaveURL(/\/sign-in/);
}

/** Opens a console page from the sidebar. */
export async function openPage(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click();
}

/** Runs axe on the page: no serious or critical violations (WCAG 2 A/AA rules). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const summary = bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  expect(summary, `accessibility of ${what}`).toEqual([]);
}

/** The text of the newest outbox email to `to` (the embedded transport writes one .eml per send). */
export async function waitForEmailTo(to: string, after = 0): Promise<string> {
  let found: string | null = null;
  await expect
    .poll(
      () => {
        if (!fs.existsSync(OUTBOX_DIR)) return null;
        const files = fs
          .readdirSync(OUTBOX_DIR)
          .map((f) => path.join(OUTBOX_DIR, f))
          .filter((f) => fs.statSync(f).mtimeMs >= after)
          .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
        for (const file of files) {
          const raw = fs.readFileSync(file, "utf8");
          if (raw.toLowerCase().includes(`to: ${to.toLowerCase()}`)) {
            found = raw;
            return true;
          }
        }
        return null;
      },
      { message: `an email to ${to} in ${OUTBOX_DIR}`, timeout: 20_000 },
    )
    .toBe(true);
  return found ?? "";
}

/** The first link matching `pattern` in a raw MIME message (quoted-printable soft breaks undone). */
export function linkIn(raw: string, pattern: RegExp): string {
  const unfolded = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = unfolded.match(pattern);
  if (!match) throw new Error(`no link matching ${pattern}`);
  return match[0].replace(/&amp;/g, "&");
}
