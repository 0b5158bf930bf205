import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { cron, type InngestFunction, NonRetriableError, RetryAfterError } from "inngest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { wfFunctions, wfRuns } from "@/db/schema";
import { hashedSigningKey, workflowKeys } from "@/lib/workflows/config";
import { checkpointFetch } from "@/lib/workflows/executor/checkpoint";
import { serveHandler } from "@/lib/workflows/executor/registry";
import { signBody } from "@/lib/workflows/executor/signing";
import { recoverOrphanedRuns } from "@/lib/workflows/executor/store";
import { listWorkflowRuns } from "@/lib/workflows/runs";
import { type Harness, runsOf, sleep, startHarness, waitForRun } from "./harness";

/**
 * Conformance of the embedded executor: small real functions, served through the SDK's real
 * `serve()` over HTTP, executed by the executor against the database under test.
 */
let h: Harness;
const count: Record<string, number> = {};
const bump = (k: string) => (count[k] = (count[k] ?? 0) + 1);
const seen: Record<string, unknown> = {};
let active = 0;
let maxActive = 0;
const id = (fn: string) => `${h.client.id}-${fn}`;

beforeAll(async () => {
  h = await startHarness();
  const c = h.client;
  const child = c.createFunction({ id: "child", triggers: [{ event: "t/never" }] }, async ({ event }) => ({
    doubled: (event.data as { n: number }).n * 2,
  }));
  const fns: InngestFunction.Any[] = [
    c.createFunction({ id: "once", triggers: [{ event: "t/once" }] }, async ({ step }) => {
      await step.run("count", () => bump("once"));
      const r = await step.run("flaky", () => {
        if (bump("flaky") < 3) throw new Error("flaky");
        return "ok";
      });
      return { r };
    }),
    c.createFunction({ id: "fn-retry", triggers: [{ event: "t/fn-retry" }] }, async ({ attempt }) => {
      bump("fn-retry");
      if (attempt < 2) throw new Error("not yet");
      return { attempt };
    }),
    c.createFunction(
      { id: "non-retriable", retries: 3, triggers: [{ event: "t/non-retriable" }] },
      async ({ step }) => {
        await step.run("refuse", () => {
          bump("non-retriable");
          throw new NonRetriableError("nope");
        });
      },
    ),
    c.createFunction({ id: "sleeper", triggers: [{ event: "t/sleep" }] }, async ({ step }) => {
      const before = await step.run("before", () => Date.now());
      await step.sleep("nap", "1s");
      const after = await step.run("after", () => Date.now());
      return { slept: after - before };
    }),
    c.createFunction({ id: "waiter", triggers: [{ event: "t/wait" }] }, async ({ step }) => {
      const approval = await step.waitForEvent("approval", {
        event: "t/approve",
        timeout: "2s",
        if: "async.data.id == event.data.id",
      });
      return { approved: approval ? approval.data : null };
    }),
    c.createFunction(
      {
        id: "cancellable",
        triggers: [{ event: "t/cancellable" }],
        cancelOn: [{ event: "t/cancel", match: "data.id" }],
      },
      async ({ step }) => {
        await step.sleep("long", "30s");
        bump("cancellable-finished");
      },
    ),
    c.createFunction({ id: "parallel", triggers: [{ event: "t/parallel" }] }, async ({ step }) => {
      const parts = await Promise.all([1, 2, 3].map((n) => step.run(`part-${n}`, () => n * 10)));
      return { sum: parts.reduce((a, b) => a + b, 0) };
    }),
    c.createFunction({ id: "three-steps", triggers: [{ event: "t/three" }] }, async ({ step, event }) => {
      bump("three-steps-calls"); // the function body runs once per call to serve()
      const a = await step.run("one", () => (event.data as { n: number }).n);
      const b = await step.run("two", () => a * 2);
      return step.run("three", () => b + 1);
    }),
    c.createFunction({ id: "lease-lost", triggers: [{ event: "t/lease-lost" }] }, async ({ step, runId }) => {
      await step.run("one", async () => {
        if (bump("lease-lost-one") === 1) {
          // As if another worker had taken the run over meanwhile: the lease is no longer this call's.
          const db = await getDb();
          await db.update(wfRuns).set({ leaseUntil: sql`now() + interval '1 second'` }).where(eq(wfRuns.id, runId));
        }
        return 1;
      });
      await step.run("two", () => bump("lease-lost-two"));
    }),
    c.createFunction({ id: "sender", triggers: [{ event: "t/send" }] }, async ({ step, event }) => {
      await step.sendEvent("fan-out", { name: "t/sent", data: { from: event.id } });
    }),
    c.createFunction({ id: "receiver", triggers: [{ event: "t/sent" }] }, async ({ event }) => {
      seen.receiver = event.data;
    }),
    c.createFunction({ id: "dedupe", triggers: [{ event: "t/dup" }] }, async () => bump("dedupe")),
    c.createFunction({ id: "cron", triggers: [cron("0 0 1 1 *")] }, async ({ event }) => {
      seen.cron = event.name;
    }),
    c.createFunction({ id: "interrupted", triggers: [{ event: "t/interrupted" }] }, async ({ step }) => {
      await step.run("before", () => bump("interrupted-before"));
      await step.sleep("pause", "1s");
      await step.run("after", () => bump("interrupted-after"));
    }),
    c.createFunction({ id: "retry-later", triggers: [{ event: "t/retry-later" }] }, async ({ step }) => {
      await step.run("first", () => bump("retry-later-first"));
      await step.run("second", () => {
        if (bump("retry-later-second") < 2) throw new RetryAfterError("come back later", "1s");
        return "done";
      });
    }),
    c.createFunction(
      {
        id: "doomed",
        retries: 1,
        triggers: [{ event: "t/doomed" }],
        onFailure: async ({ error, event }: { error: Error; event: { data: { event: { name: string } } } }) => {
          seen.failure = { message: error.message, original: event.data.event.name };
        },
      },
      async () => {
        bump("doomed");
        throw new Error("always fails");
      },
    ),
    child,
    c.createFunction({ id: "parent", triggers: [{ event: "t/parent" }] }, async ({ step }) => {
      const res = await step.invoke("call-child", { function: child, data: { n: 21 } });
      return res;
    }),
    c.createFunction(
      { id: "limited", concurrency: { limit: 1, key: "event.data.k" }, triggers: [{ event: "t/limited" }] },
      async ({ step }) => {
        await step.run("work", async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await sleep(120);
          active--;
        });
      },
    ),
  ];
  await h.serveFunctions(fns);
  h.executor.start();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe("steps and retries", () => {
  test("a step runs exactly once across later retries", async () => {
    await h.client.send({ name: "t/once", data: {} });
    const run = await waitForRun(id("once"), (r) => r.status === "completed");
    expect(run.output).toEqual({ r: "ok" });
    expect(count.once).toBe(1);
    expect(count.flaky).toBe(3);
    expect(run.history.filter((s) => s.status === "errored")).toHaveLength(2);
  });

  test("a thrown error retries the function, then it succeeds (ctx.attempt counts)", async () => {
    await h.client.send({ name: "t/fn-retry", data: {} });
    const run = await waitForRun(id("fn-retry"), (r) => r.status === "completed");
    expect(run.output).toEqual({ attempt: 2 });
    expect(count["fn-retry"]).toBe(3);
  });

  test("NonRetriableError fails at once", async () => {
    await h.client.send({ name: "t/non-retriable", data: {} });
    const run = await waitForRun(id("non-retriable"), (r) => r.status === "failed");
    expect(count["non-retriable"]).toBe(1);
    expect(run.error).toMatchObject({ message: expect.stringContaining("nope") });
  });

  test("parallel steps all run and their results join", async () => {
    await h.client.send({ name: "t/parallel", data: {} });
    const run = await waitForRun(id("parallel"), (r) => r.status === "completed");
    expect(run.output).toEqual({ sum: 60 });
    expect(
      run.history
        .filter((s) => s.status === "completed")
        .map((s) => s.name)
        .sort(),
    ).toEqual(["part-1", "part-2", "part-3"]);
  });

  test("onFailure runs after the last attempt", async () => {
    await h.client.send({ name: "t/doomed", data: {} });
    await waitForRun(id("doomed"), (r) => r.status === "failed");
    expect(count.doomed).toBe(2);
    await waitForRun(id("doomed-failure"), (r) => r.status === "completed");
    expect(seen.failure).toEqual({ message: "always fails", original: "t/doomed" });
  });
});

describe("checkpointing", () => {
  test("a three-step run is one call to serve(), each step recorded as it ends", async () => {
    await h.client.send({ name: "t/three", data: { n: 4 } });
    const run = await waitForRun(id("three-steps"), (r) => r.status === "completed");
    expect(run.output).toBe(9);
    expect(count["three-steps-calls"]).toBe(1);
    expect(Object.keys(run.steps)).toHaveLength(3);
    expect(run.history.filter((e) => e.status === "completed").map((e) => e.name)).toEqual(["one", "two", "three"]);
  });

  test("a checkpoint after the run's lease was lost is refused: no step is recorded or run under it", async () => {
    await h.client.send({ name: "t/lease-lost", data: {} });
    const run = await waitForRun(id("lease-lost"), (r) => r.status === "completed");
    // The first call's step was refused (409) and the SDK ran nothing after it; once the lease
    // ran out a worker took the run over and ran the step again, then the next one, once.
    expect(count["lease-lost-one"]).toBe(2);
    expect(count["lease-lost-two"]).toBe(1);
    expect(Object.keys(run.steps)).toHaveLength(2);
  });

  test("the checkpoint endpoint refuses a wrong key, and a checkpoint of no call under way", async () => {
    const bearer = `Bearer ${hashedSigningKey(workflowKeys().signingKey)}`;
    const post = checkpointFetch(`${h.origin}/`, bearer);
    const url = `${h.origin}/v1/checkpoint/r1/async`;
    const body = JSON.stringify({ run_id: "r1", qi_id: "q", steps: [{ id: "a", op: "StepRun", data: 1 }] });
    const wrong = await post(url, { method: "POST", headers: { Authorization: "Bearer signkey-x-00" }, body });
    expect(wrong.status).toBe(401);
    const stale = await post(url, { method: "POST", headers: { Authorization: bearer }, body });
    expect(stale.status).toBe(409);
  });
});

describe("sleeping and waiting", () => {
  test("sleep resumes after its time", async () => {
    await h.client.send({ name: "t/sleep", data: {} });
    await waitForRun(id("sleeper"), (r) => r.status === "sleeping");
    const run = await waitForRun(id("sleeper"), (r) => r.status === "completed");
    expect((run.output as { slept: number }).slept).toBeGreaterThanOrEqual(1000);
  });

  test("waitForEvent resolves on a matching event, not on a non-matching one", async () => {
    await h.client.send({ name: "t/wait", data: { id: "w-1" } });
    await waitForRun(id("waiter"), (r) => r.status === "waiting" && (r.event.data as { id: string }).id === "w-1");
    await h.client.send({ name: "t/approve", data: { id: "w-other", by: "mallory" } });
    await sleep(300);
    const still = (await runsOf(id("waiter"))).find((r) => (r.event.data as { id: string }).id === "w-1");
    expect(still?.status).toBe("waiting");
    await h.client.send({ name: "t/approve", data: { id: "w-1", by: "alice" } });
    const run = await waitForRun(
      id("waiter"),
      (r) => r.status === "completed" && (r.event.data as { id: string }).id === "w-1",
    );
    expect(run.output).toEqual({ approved: { id: "w-1", by: "alice" } });
  });

  test("waitForEvent returns null on timeout", async () => {
    await h.client.send({ name: "t/wait", data: { id: "w-timeout" } });
    const run = await waitForRun(
      id("waiter"),
      (r) => r.status === "completed" && (r.event.data as { id: string }).id === "w-timeout",
    );
    expect(run.output).toEqual({ approved: null });
  });

  test("cancelOn stops a sleeping run", async () => {
    await h.client.send({ name: "t/cancellable", data: { id: "c-1" } });
    await h.client.send({ name: "t/cancellable", data: { id: "c-2" } });
    await waitForRun(
      id("cancellable"),
      (r) => r.status === "sleeping" && (r.event.data as { id: string }).id === "c-1",
    );
    await waitForRun(
      id("cancellable"),
      (r) => r.status === "sleeping" && (r.event.data as { id: string }).id === "c-2",
    );
    await h.client.send({ name: "t/cancel", data: { id: "c-1" } });
    const run = await waitForRun(id("cancellable"), (r) => r.status === "cancelled");
    expect((run.event.data as { id: string }).id).toBe("c-1");
    const other = (await runsOf(id("cancellable"))).find((r) => (r.event.data as { id: string }).id === "c-2");
    expect(other?.status).toBe("sleeping");
    expect(count["cancellable-finished"]).toBeUndefined();
  });
});

describe("events", () => {
  test("sendEvent from a step triggers another function", async () => {
    const [sent] = (await h.client.send({ name: "t/send", data: {} })).ids;
    await waitForRun(id("sender"), (r) => r.status === "completed");
    await waitForRun(id("receiver"), (r) => r.status === "completed");
    expect(seen.receiver).toEqual({ from: sent });
  });

  test("a duplicate event id triggers once", async () => {
    // A fresh id per test run: event ids are kept, and a reused database already has an old one.
    const eventId = `dup-${randomUUID()}`;
    await h.client.send({ id: eventId, name: "t/dup", data: {} });
    await h.client.send({ id: eventId, name: "t/dup", data: {} });
    await waitForRun(id("dedupe"), (r) => r.status === "completed");
    await sleep(300);
    expect(await runsOf(id("dedupe"))).toHaveLength(1);
    expect(count.dedupe).toBe(1);
  });

  test("step.invoke runs another function and returns its result", async () => {
    await h.client.send({ name: "t/parent", data: {} });
    const run = await waitForRun(id("parent"), (r) => r.status === "completed");
    expect(run.output).toEqual({ doubled: 42 });
  });

  test("cron fires when due and schedules the next time", async () => {
    const db = await getDb();
    await db
      .update(wfFunctions)
      .set({ nextCronAt: sql`now() - interval '1 second'` })
      .where(eq(wfFunctions.id, id("cron")));
    const run = await waitForRun(id("cron"), (r) => r.status === "completed");
    expect(run.event.name).toBe("inngest/scheduled.timer");
    expect(seen.cron).toBe("inngest/scheduled.timer");
    const [fn] = await db
      .select()
      .from(wfFunctions)
      .where(eq(wfFunctions.id, id("cron")));
    expect(fn?.nextCronAt?.getTime()).toBeGreaterThan(Date.now());
  });

  test("per-key concurrency limits how many runs execute at once", async () => {
    await h.client.send([1, 2, 3, 4].map((n) => ({ name: "t/limited", data: { k: "same", n } })));
    await sleep(100);
    for (;;) {
      const runs = await runsOf(id("limited"));
      if (runs.length === 4 && runs.every((r) => r.status === "completed")) break;
      await sleep(50);
    }
    expect(maxActive).toBe(1);
  });
});

describe("durability", () => {
  test("a sleeping run interrupted by stopping the executor completes under a new one, no step twice", async () => {
    await h.client.send({ name: "t/interrupted", data: {} });
    await waitForRun(id("interrupted"), (r) => r.status === "sleeping");
    await h.executor.stop();
    await sleep(1200);
    h.newExecutor().start();
    await waitForRun(id("interrupted"), (r) => r.status === "completed");
    expect(count["interrupted-before"]).toBe(1);
    expect(count["interrupted-after"]).toBe(1);
  });

  test("a retrying run interrupted by stopping the executor completes under a new one", async () => {
    await h.client.send({ name: "t/retry-later", data: {} });
    await waitForRun(id("retry-later"), (r) => r.status === "queued" && r.retryStep !== null);
    await h.executor.stop();
    await sleep(1100);
    h.newExecutor().start();
    await waitForRun(id("retry-later"), (r) => r.status === "completed");
    expect(count["retry-later-first"]).toBe(1);
    expect(count["retry-later-second"]).toBe(2);
  });

  test("a run left running by a dead process is recovered and completes, no step twice", async () => {
    await h.client.send({ name: "t/interrupted", data: { crash: true } });
    const sleeping = await waitForRun(
      id("interrupted"),
      (r) => r.status === "sleeping" && (r.event.data as { crash?: boolean }).crash === true,
    );
    await h.executor.stop();
    // What a process killed mid-call leaves behind: a run marked running under a live-looking lease.
    const db = await getDb();
    await db
      .update(wfRuns)
      .set({ status: "running", leaseUntil: sql`now() + interval '1 hour'` })
      .where(eq(wfRuns.id, sleeping.id));
    // Only this run: on PostgreSQL other test files' live runs share the database.
    expect(await recoverOrphanedRuns([sleeping.id])).toBe(1);
    h.newExecutor().start();
    await waitForRun(id("interrupted"), (r) => r.id === sleeping.id && r.status === "completed");
    expect(count["interrupted-before"]).toBe(2); // one per run of this function, never twice in one run
    expect(count["interrupted-after"]).toBe(2);
  });
});

describe("security and operations", () => {
  test("serve() refuses calls without the executor's signature", async () => {
    const res = await fetch(`${h.origin}/api/inngest?fnId=${id("once")}&stepId=step`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        version: 2,
        event: { name: "t/once", data: {} },
        events: [],
        steps: {},
        ctx: { run_id: "x", attempt: 0, stack: { stack: [], current: 0 } },
      }),
    });
    expect(res.status).toBe(401);
  });

  test("in-process calls go through serve()'s signature check too", async () => {
    const handler = serveHandler(h.serveUrl);
    expect(handler).not.toBeNull();
    const body = JSON.stringify({
      version: 2,
      event: { name: "t/once", data: {} },
      events: [],
      steps: {},
      ctx: { run_id: "x", attempt: 0, stack: { stack: [], current: 0 } },
    });
    const url = `${h.serveUrl}?fnId=${id("once")}&stepId=step`;
    const unsigned = await handler?.(
      new Request(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Inngest-Server-Kind": "cloud" },
        body,
      }),
    );
    expect(unsigned?.status).toBe(401);
    const forged = await handler?.(
      new Request(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Inngest-Signature": signBody(body, "signkey-test-00") },
        body,
      }),
    );
    expect(forged?.status).toBe(401);
  });

  test("the executor also drives runs over HTTP (transport http)", async () => {
    await h.executor.stop();
    h.newExecutor({ transport: "http" }).start();
    await h.client.send({ name: "t/parallel", data: { http: true } });
    const run = await waitForRun(
      id("parallel"),
      (r) => r.status === "completed" && (r.event.data as { http?: boolean }).http === true,
    );
    expect(run.output).toEqual({ sum: 60 });
    await h.executor.stop();
    h.newExecutor().start();
  });

  test("the event API and registration refuse wrong keys", async () => {
    const ev = await fetch(`${h.origin}/e/not-the-key`, {
      method: "POST",
      body: JSON.stringify([{ name: "t/once", data: {} }]),
    });
    expect(ev.status).toBe(401);
    const reg = await fetch(`${h.origin}/fn/register`, {
      method: "POST",
      headers: { Authorization: "Bearer signkey-x-00" },
      body: "{}",
    });
    expect(reg.status).toBe(401);
  });

  test("operators can list runs with status, steps and errors", async () => {
    const db = await getDb();
    const failed = await listWorkflowRuns(db, { limit: 5, status: "failed", functionId: id("doomed") });
    expect(failed.runs[0]).toMatchObject({
      status: "failed",
      functionId: id("doomed"),
      error: { message: "always fails" },
    });
    expect(failed.runs[0]?.steps.length).toBeGreaterThan(0);
    const all = await listWorkflowRuns(db, { limit: 2 });
    expect(all.runs).toHaveLength(2);
    expect(all.pagination.hasMore).toBe(true);
  });
});
