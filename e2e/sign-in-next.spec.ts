import { expect, test } from "@playwright/test";

/**
 * Issue 10 #8: a signed-in visit to /sign-in?next=… redirects to `next`; values with \v, \f, \0,
 * U+3002 or a bidi override were a 500 (an invalid Location header), and `/.//host` must not leave
 * the site. Every one now lands on a page of this origin.
 */
const suffix = Date.now().toString(36);

test("signed in, /sign-in?next=<hostile> never fails and never leaves the origin", async ({ page, baseURL }) => {
  await page.goto("/sign-up");
  await page.getByLabel("Name").fill("Nell Next");
  await page.getByLabel("Email").fill(`next-${suffix}@example.com`);
  await page.getByLabel("Password").fill("next password 12345");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Create your organization" })).toBeVisible();
  const origin = new URL(baseURL ?? "").origin;
  for (const next of [
    "/\v",
    "/\f",
    "/\0",
    "/a\0b",
    "/\u3002evil.example",
    "//evil\u3002example",
    "/\u202eexample",
    "/.//evil.example",
    "/\\evil.example",
    "/\r\nX: y",
  ]) {
    const res = await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
    expect(res?.status(), JSON.stringify(next)).toBeLessThan(500);
    expect(new URL(page.url()).origin, JSON.stringify(next)).toBe(origin);
  }
  // A plain path (with its query) is still followed.
  await page.goto(`/sign-in?next=${encodeURIComponent("/onboarding?new=1")}`);
  await expect(page).toHaveURL(/\/onboarding\?new=1$/);
});
