import { expect, test } from "vitest";
import { call, newOrg } from "./harness";

test("notification preferences default to enabled and update per category", async () => {
  const org = await newOrg();
  const get = await call("GET", "/v1/notification-preferences", { key: org.secret });
  expect(get.status).toBe(200);
  expect(get.body).toEqual({
    object: "notification_preferences",
    preferences: ["account", "billing", "usage", "security", "product"].map((category) => ({
      category,
      emailEnabled: true,
    })),
  });
  const upd = await call("PATCH", "/v1/notification-preferences", {
    key: org.secret,
    body: { preferences: { product: false, usage: false } },
  });
  expect(upd.status).toBe(200);
  const byCat = Object.fromEntries(
    upd.body.preferences.map((p: { category: string; emailEnabled: boolean }) => [p.category, p.emailEnabled]),
  );
  expect(byCat).toEqual({ account: true, billing: true, usage: false, security: true, product: false });
  const back = await call("PATCH", "/v1/notification-preferences", {
    key: org.secret,
    body: { preferences: { product: true } },
  });
  expect(back.body.preferences.find((p: { category: string }) => p.category === "product").emailEnabled).toBe(true);
  const audit = await call("GET", "/v1/audit-logs?action=notification_preferences.updated", { key: org.secret });
  expect(audit.body.logs).toHaveLength(2);
});

test("unknown categories and empty updates are rejected", async () => {
  const org = await newOrg();
  const unknown = await call("PATCH", "/v1/notification-preferences", {
    key: org.secret,
    body: { preferences: { marketing: false } },
  });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.param).toBe("preferences.marketing");
  const empty = await call("PATCH", "/v1/notification-preferences", { key: org.secret, body: { preferences: {} } });
  expect(empty.status).toBe(400);
  const wrongType = await call("PATCH", "/v1/notification-preferences", {
    key: org.secret,
    body: { preferences: { account: "no" } },
  });
  expect(wrongType.body.error.param).toBe("preferences.account");
});
