import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { idempotencyKeys, wfFunctions } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { ingestEvents } from "@/lib/workflows/executor/store";
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
  await call("POST", "/v1/api-keys", { key: org.secret, body: { name: "old", scopes: ["keys:read"] }, headers: { "Idempotency-Key": "old-1" } });
  const db = await getDb();
  await db.update(idempotencyKeys).set({ createdAt: new Date(Date.now() - 25 * 3_600_000) }).where(eq(idempotencyKeys.orgId, org.orgId));
  await ingestEvents([{ name: "svc/housekeeping.requested", data: { reason: "test" } }]);
  // Only the run this event started: the hourly cron can also run while the file does.
  const run = await waitForRun("svc-housekeeping", (r) => r.status === "completed" && r.event.name === "svc/housekeeping.requested");
  // A cron run in the same minute may have purged the key first, so the count is summed over both.
  const purged = (await runsOf("svc-housekeeping")).filter((r) => r.status === "completed").reduce((n, r) => n + (r.output as { idempotencyKeys: number }).idempotencyKeys, 0);
  expect(purged).toBeGreaterThanOrEqual(1);
  expect(run.history.filter((s) => s.status === "completed").map((s) => s.name)).toEqual(["purge-idempotency-keys", "purge-workflow-events", "sweep-storage", "purge-rate-limits", "rescan-stale-objects"]);
  expect((run.output as { storage: { deleted: number } }).storage).toMatchObject({ deleted: expect.any(Number) });
  expect(await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.orgId, org.orgId))).toHaveLength(0);
});
