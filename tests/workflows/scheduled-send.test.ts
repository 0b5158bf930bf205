import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { auditLogs } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { call, newInbox, newOrg } from "../harness";
import { type Harness, startHarness, waitForRun } from "./harness";

/** Scheduled sends go through the app's send-scheduled-message function, run by the executor. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
});
afterAll(async () => {
  await h.close();
});

const FN = "svc-send-scheduled-message";

test("a scheduled email returns scheduled, then is sent when sendAt comes", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "sched");
  const sendAt = new Date(Date.now() + 1500).toISOString();
  const res = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: "later@example.com", subject: "Later", text: "x", sendAt },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: "scheduled",
    scheduledAt: new Date(sendAt).toISOString(),
    providerMessageId: null,
  });
  const before = await call("GET", `/v1/outbound-emails/${res.body.id}`, { key: org.secret });
  expect(before.body.message).toMatchObject({ status: "scheduled", sentAt: null });

  await waitForRun(
    FN,
    (r) => r.status === "completed" && (r.event.data as { messageId: string }).messageId === res.body.id,
  );
  const after = await call("GET", `/v1/messages/${res.body.id}`, { key: org.secret });
  expect(after.body.message.status).toBe("sent");
  expect(after.body.message.threadId).toBeTruthy();
  expect(new Date(after.body.message.channelMetadata.lastEventAt).getTime()).toBeGreaterThanOrEqual(
    new Date(sendAt).getTime(),
  );
  const events = await call("GET", `/v1/messages/${res.body.id}/events`, { key: org.secret });
  expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(["Delivery"]);
});

test("a scheduled email is re-validated when it fires: a paused inbox fails it", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "revalidate");
  const res = await call("POST", "/v1/messages", {
    key: org.secret,
    body: { inboxId: inbox.id, to: "later@example.com", text: "x", sendAt: new Date(Date.now() + 1200).toISOString() },
  });
  await call("PATCH", `/v1/inboxes/${inbox.id}`, { key: org.secret, body: { status: "paused" } });
  await waitForRun(
    FN,
    (r) => r.status === "completed" && (r.event.data as { messageId: string }).messageId === res.body.id,
  );
  const after = await call("GET", `/v1/outbound-emails/${res.body.id}`, { key: org.secret });
  expect(after.body.message.status).toBe("failed");
  expect(after.body.message.error).toContain("paused");
});

test("cancel stops a scheduled email before it fires; cancelling twice is 409", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "cancel");
  const res = await call("POST", "/v1/messages", {
    key: org.secret,
    body: {
      inboxId: inbox.id,
      to: "never@example.com",
      text: "x",
      sendAt: new Date(Date.now() + 60_000).toISOString(),
    },
  });
  await waitForRun(
    FN,
    (r) => r.status === "sleeping" && (r.event.data as { messageId: string }).messageId === res.body.id,
  );
  const cancel = await call("POST", `/v1/outbound-emails/${res.body.id}/cancel`, { key: org.secret });
  expect(cancel.status).toBe(200);
  expect(cancel.body.message).toMatchObject({ id: res.body.id, status: "canceled" });
  await waitForRun(
    FN,
    (r) => r.status === "cancelled" && (r.event.data as { messageId: string }).messageId === res.body.id,
  );
  const again = await call("POST", `/v1/outbound-emails/${res.body.id}/cancel`, { key: org.secret });
  expect(again.status).toBe(409);
  // The cancel is audited once (the refused second one writes nothing).
  const audit = await (await getDb())
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, org.orgId), eq(auditLogs.resourceId, res.body.id)));
  expect(audit.map((a) => a.action)).toEqual(["message.scheduled_canceled"]);
});
