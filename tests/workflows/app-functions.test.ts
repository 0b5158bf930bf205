import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { idempotencyKeys, wfFunctions } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { objectScanRequested } from "@/lib/buckets/workflow-events";
import { DOMAINS, FUNCTIONS, WORKFLOW_EVENTS } from "@/lib/registry";
import { WorkflowEventError } from "@/lib/workflows/define";
import { ingestEvents } from "@/lib/workflows/executor/store";
import { publishWorkflowEvents } from "@/lib/workflows/publish";
import { housekeepingRequested } from "@/lib/workflows/workflow-events";
import { call, newOrg } from "../harness";
import { type Harness, runsOf, startHarness, waitForRun } from "./harness";

/** The app's own functions, served by the app's client through the real serve() and run by the executor. */
let h: Harness;
let ids: string[];
let registeredAt: number;
beforeAll(async () => {
  h = await startHarness();
  registeredAt = Date.now();
  ids = await h.serveApp(inngest, functions);
  h.executor.start();
});
afterAll(async () => {
  await h.close();
});

test("the app registers its functions, with the housekeeping cron scheduled", async () => {
  expect(ids).toContain("svc-housekeeping");
  const db = await getDb();
  const [fn] = await db.select().from(wfFunctions).where(eq(wfFunctions.id, "svc-housekeeping"));
  expect(fn?.cron).toBe("17 * * * *");
  // Measured against registration time and the cron's minute, not "now": when the file runs during
  // minute :17 the cron comes due and the executor moves nextCronAt on to the next hour.
  expect(fn?.nextCronAt?.getTime()).toBeGreaterThan(registeredAt - 1_000);
  expect(fn?.nextCronAt?.getUTCMinutes()).toBe(17);
});

test("housekeeping purges idempotency keys past their retention and sweeps storage, one step each", async () => {
  const org = await newOrg();
  await call("POST", "/v1/api-keys", {
    key: org.secret,
    body: { name: "old", scopes: ["keys:read"] },
    headers: { "Idempotency-Key": "old-1" },
  });
  const db = await getDb();
  await db
    .update(idempotencyKeys)
    .set({ createdAt: new Date(Date.now() - 25 * 3_600_000) })
    .where(eq(idempotencyKeys.orgId, org.orgId));
  await ingestEvents([{ name: "svc/housekeeping.requested", data: { reason: "test" } }]);
  // Only the run this event started: the hourly cron can also run while the file does.
  const run = await waitForRun(
    "svc-housekeeping",
    (r) => r.status === "completed" && r.event.name === "svc/housekeeping.requested",
  );
  // A cron run in the same minute may have purged the key first, so the count is summed over both.
  const purged = (await runsOf("svc-housekeeping"))
    .filter((r) => r.status === "completed")
    .reduce((n, r) => n + (r.output as { idempotencyKeys: number }).idempotencyKeys, 0);
  expect(purged).toBeGreaterThanOrEqual(1);
  expect(run.history.filter((s) => s.status === "completed").map((s) => s.name)).toEqual([
    "purge-idempotency-keys",
    "purge-workflow-events",
    "sweep-storage",
    "purge-rate-limits",
    "rescan-stale-objects",
    "purge-request-logs",
    "recover-slack-events",
    "purge-provider-callbacks",
  ]);
  expect((run.output as { storage: { deleted: number } }).storage).toMatchObject({ deleted: expect.any(Number) });
  expect(await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.orgId, org.orgId))).toHaveLength(0);
});

test("the served functions and the workflow events come from the domains' manifests; every trigger is a declared event", () => {
  expect(functions).toBe(FUNCTIONS);
  const byDomain = Object.fromEntries(
    DOMAINS.filter((d) => d.functions?.length).map((d) => [d.name, d.functions?.map((f) => f.id("svc"))]),
  );
  expect(byDomain).toEqual({
    messages: ["svc-send-scheduled-message"],
    compliance: ["svc-compliance-job"],
    webhooks: ["svc-replay-webhook"],
    buckets: ["svc-scan-object"],
    phone: ["svc-sweep-phone-calls", "svc-bill-phone-numbers"],
    waits: ["svc-sweep-verification-waits"],
    letters: ["svc-simulate-letter", "svc-sweep-letters"],
    workflows: ["svc-housekeeping", "svc-fanout-orchestrate", "svc-fanout-chunk"],
  });
  // Registered: those, and the SDK's onFailure handler of scan-object.
  expect(ids.filter((id) => !id.endsWith("-failure")).sort()).toEqual(FUNCTIONS.map((f) => f.id("svc")).sort());
  // The batched dispatcher replaced per-event delivery runs: nothing publishes svc/webhook.deliver.
  expect(ids).not.toContain("svc-deliver-webhook");
  expect(WORKFLOW_EVENTS.has("svc/webhook.deliver")).toBe(false);
  // Each declared event starts or cancels a function.
  const used = new Set(
    FUNCTIONS.flatMap((f) => {
      const opts = f.opts as { triggers?: { event?: unknown; name?: string }[]; cancelOn?: { event: string }[] };
      return [...(opts.triggers ?? []).map((t) => t.name), ...(opts.cancelOn ?? []).map((c) => c.event)];
    }),
  );
  expect([...WORKFLOW_EVENTS.keys()].filter((name) => !used.has(name))).toEqual([]);
});

test("a payload is validated when published: a bad one throws naming the fields, inside the publisher's transaction", async () => {
  expect(() => objectScanRequested.create({ objectId: "not-a-uuid" } as never)).toThrow(WorkflowEventError);
  expect(() => objectScanRequested.create({ objectId: "not-a-uuid" } as never)).toThrow(
    /svc\/object\.scan\.requested.*data\.objectId.*data\.orgId/,
  );
  const db = await getDb();
  const org = await newOrg();
  const before = (await runsOf("svc-housekeeping")).length;
  // The change and its workflow commit together: the bad event rolls the change back too.
  await expect(
    db.transaction(async (tx) => {
      await tx.insert(idempotencyKeys).values({ orgId: org.orgId, key: "rolled-back", requestHash: "x" });
      await publishWorkflowEvents(tx, [housekeepingRequested.create({ reason: 42 } as never)]);
    }),
  ).rejects.toThrow(/data\.reason/);
  expect(await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, "rolled-back"))).toHaveLength(0);
  expect((await runsOf("svc-housekeeping")).length).toBe(before);
});

test("a payload is validated when handled: an event that arrives malformed fails its run before any step, without retries", async () => {
  // Published around the services (the executor's event API takes any JSON).
  await ingestEvents([
    { id: "bad-schedule", name: "svc/message.scheduled", data: { messageId: "m-1", sendAt: "tomorrow" } },
  ]);
  const run = await waitForRun(
    "svc-send-scheduled-message",
    (r) => r.event.id === "bad-schedule" && r.status === "failed",
  );
  expect(JSON.stringify(run.error)).toMatch(
    /EventValidationError.*messageId: Invalid UUID.*sendAt: Invalid ISO datetime/,
  );
  expect(run.history.filter((s) => s.status === "completed")).toEqual([]);
  expect(run.attempt ?? 0).toBeLessThanOrEqual(1);

  await ingestEvents([{ id: "bad-scan", name: "svc/object.scan.requested", data: { objectId: 7 } }]);
  const scan = await waitForRun("svc-scan-object", (r) => r.event.id === "bad-scan" && r.status === "failed");
  expect(scan.history.filter((s) => s.status === "completed")).toEqual([]);
});
