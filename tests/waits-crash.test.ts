import { randomBytes } from "node:crypto";
import { afterAll, expect, test } from "vitest";
import { CrashProcesses, crashApi, phaseClock } from "./fixtures/crash/processes";

/**
 * kill -9 of a real server process while two verification waits are pending: a wait is a row, so
 * a restarted process on the same database resolves the first from a message that arrives after
 * the restart (an internal send from another inbox of the service: an authenticated sender), with
 * one `verification.resolved`; and its sweep cron (the embedded executor, `WAITS_SWEEP_CRON` every
 * 2 s here) expires the second at its deadline with one `verification.expired` — observed in the
 * event log only, since a read of the wait would settle it itself. On PostgreSQL it runs in a
 * database of its own.
 */

const run = randomBytes(4).toString("hex");
const processes = new CrashProcesses();
afterAll(() => processes.close());

test("kill -9 with pending waits: after the restart one resolves from a new message, the other expires by the sweep", {
  timeout: 120_000,
}, async () => {
  const { base, env } = await processes.serverEnv("waits", ({ base }) => ({
    INTERNAL_URL: base,
    WORKFLOWS: "1",
    WAITS_SWEEP_CRON: "*/2 * * * * *",
    OUTBOX_LEASE_SECONDS: "5",
  }));
  const { phase, phases } = phaseClock();
  const first = await processes.start({ ...env, SEED: "1" });
  phase("firstUp");
  const secret = first.info.secret ?? "";
  const inboxId = first.info.inboxId ?? "";
  expect(secret).not.toBe("");
  const api = crashApi(base, secret);
  const waitEvents = async (type: string, waitId: string) =>
    ((await api("GET", `/v1/events?type=${type}&limit=100`)).body.data as { data: Record<string, unknown> }[]).filter(
      (e) => e.data.waitId === waitId,
    );

  const got = (await api("GET", `/v1/inboxes/${inboxId}`)).body;
  const inbox = (got.inbox ?? got) as { address: string };
  expect(inbox.address).toMatch(/@/);
  const sender = await api("POST", "/v1/inboxes", { address: `sender-${run}@svc.localhost` });
  expect(sender.status, JSON.stringify(sender.body)).toBe(200);
  const senderInbox = sender.body.inbox as { id: string; address: string };
  // Resolved after the restart by the sender's message.
  const code = await api("POST", `/v1/inboxes/${inboxId}/waits`, { timeoutSec: 300, fromHint: senderInbox.address });
  expect(code.status, JSON.stringify(code.body)).toBe(201);
  // Hinted at someone who never writes: left to expire (30 s, the shortest timeout).
  const idle = await api("POST", `/v1/inboxes/${inboxId}/waits`, {
    timeoutSec: 30,
    fromHint: `nobody-${run}@elsewhere.example`,
  });
  expect(idle.status, JSON.stringify(idle.body)).toBe(201);
  const idleExpiresAt = Date.parse(idle.body.expiresAt);
  expect((await api("GET", `/v1/waits/${code.body.waitId}`)).body.status).toBe("pending");

  first.child.kill("SIGKILL");
  await first.exited;
  phase("killed");
  await processes.start(env);
  phase("secondUp");

  const sent = await api("POST", "/v1/messages", {
    inboxId: senderInbox.id,
    to: [inbox.address],
    subject: "Your sign-in code",
    text: "Order #88812345 shipped on 2025-03-14.\nYour verification code is 905 817.",
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  let resolved: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    resolved = (await api("GET", `/v1/waits/${code.body.waitId}`)).body;
    if (resolved.status !== "pending") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(resolved).toMatchObject({
    status: "resolved",
    result: "905817",
    resultKind: "code",
    from: senderInbox.address,
  });
  phase("resolved");
  const resolvedEvents = await waitEvents("verification.resolved", code.body.waitId);
  expect(resolvedEvents).toHaveLength(1);
  expect(resolvedEvents[0]?.data).toMatchObject({ result: "905817", messageId: resolved.messageId });

  // The idle wait: only the sweep settles it (no read of it until its event is in the log).
  let expired: { data: Record<string, unknown> }[] = [];
  while (Date.now() < idleExpiresAt + 20_000) {
    expired = await waitEvents("verification.expired", idle.body.waitId);
    if (expired.length > 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  phase("expired");
  console.log("waits-crash phases (ms)", phases);
  expect(expired).toHaveLength(1);
  expect(expired[0]?.data).toMatchObject({ reason: "timeout" });
  expect(Date.parse(String(expired[0]?.data.expiredAt))).toBeGreaterThanOrEqual(idleExpiresAt);
  const idleNow = (await api("GET", `/v1/waits/${idle.body.waitId}`)).body;
  expect(idleNow).toMatchObject({ status: "expired", result: null, expiredAt: expired[0]?.data.expiredAt });
  expect(await waitEvents("verification.resolved", idle.body.waitId)).toHaveLength(0);
  expect(await waitEvents("verification.expired", idle.body.waitId)).toHaveLength(1);
});
