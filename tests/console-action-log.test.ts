import { expect, test, vi } from "vitest";
import { getDb } from "@/db";
import { env } from "@/lib/env";
import { listRequestLogs } from "@/lib/request-logs/service";
import { signIn } from "./console-session";
import { newOrg } from "./harness";

/**
 * A console form that fails is in the request log (source `console`, the operation's `/v1` method
 * and path, the signed-in user as actor) and its error carries the entry's id, which the form links
 * to (`/logs/<id>`). The console's session is a test organization's user (tests/console-session.ts).
 */
vi.mock("@/lib/console/context", () => import("./console-session").then((m) => m.consoleContextMock));

const { runAction } = await import("@/lib/console/action");
const { createInbox } = await import("@/lib/inboxes/operations");

test("a failed console form is recorded by its user and its error links to the entry", {
  timeout: 120_000,
}, async () => {
  const org = await newOrg();
  const principal = signIn(org, "owner");
  const result = await runAction(createInbox, { displayName: "no address", password: "hunter2-secret" });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe("invalid_request");
  expect(result.error.logId).toMatch(/^[0-9a-f-]{36}$/);

  const { logs } = await listRequestLogs(await getDb(), principal, { limit: 10 });
  expect(logs).toHaveLength(1);
  const [entry] = logs;
  expect(entry).toMatchObject({
    id: result.error.logId,
    source: "console",
    method: "POST",
    path: "/v1/inboxes",
    status: 400,
    errorCode: "invalid_request",
    keyId: null,
    actor: `user:${org.userId}`,
    ip: "203.0.113.9",
  });
  expect(JSON.parse(entry?.requestBody ?? "null")).toEqual({ displayName: "no address", password: "[redacted]" });
  expect(JSON.parse(entry?.responseBody ?? "null").error.code).toBe("invalid_request");
});

test("a refusal by role is recorded too; a successful form is not", { timeout: 120_000 }, async () => {
  const org = await newOrg();
  signIn(org, "member");
  // `member` may not create inboxes: 403, recorded and linked like a validation failure.
  const refused = await runAction(createInbox, {
    address: `m-${crypto.randomUUID().slice(0, 8)}@${env.SHARED_DOMAIN}`,
  });
  expect(refused.ok).toBe(false);
  if (!refused.ok) {
    expect(refused.error.code).toBe("scope_missing");
    expect(refused.error.logId).toBeDefined();
  }

  const owner = signIn(org, "owner");
  const ok = await runAction(createInbox, { address: `o-${crypto.randomUUID().slice(0, 8)}@${env.SHARED_DOMAIN}` });
  expect(ok).toMatchObject({ ok: true });
  const { logs } = await listRequestLogs(await getDb(), owner, { limit: 10 });
  expect(logs.map((l) => [l.source, l.status, l.actor, l.id])).toEqual([
    ["console", 403, `user:${org.userId}`, refused.ok ? null : refused.error.logId],
  ]);
});
