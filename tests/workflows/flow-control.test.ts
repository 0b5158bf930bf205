import type { InngestFunction } from "inngest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Harness, runsOf, sleep, startHarness, waitForRun } from "./harness";

/**
 * Flow control as Inngest defines it (throttle, rateLimit, debounce, batchEvents, priority),
 * registered through the SDK's real `serve()` and applied by the embedded executor.
 */
let h: Harness;
const id = (fn: string) => `${h.client.id}-${fn}`;
const starts: string[] = [];
let released = false;

beforeAll(async () => {
  h = await startHarness();
  const c = h.client;
  const fns: InngestFunction.Any[] = [
    c.createFunction(
      {
        id: "rate-limited",
        rateLimit: { limit: 2, period: "1m", key: "event.data.k" },
        triggers: [{ event: "f/rate" }],
      },
      async ({ event }) => event.data,
    ),
    c.createFunction(
      { id: "debounced", debounce: { period: "1s", key: "event.data.k" }, triggers: [{ event: "f/debounce" }] },
      async ({ event }) => event.data,
    ),
    c.createFunction(
      { id: "batched", batchEvents: { maxSize: 3, timeout: "1s" }, triggers: [{ event: "f/batch" }] },
      async ({ events }: { events: { data: unknown }[] }) => events.map((e) => (e.data as { n: number }).n),
    ),
    c.createFunction(
      { id: "throttled", throttle: { limit: 1, period: "1s" }, triggers: [{ event: "f/throttle" }] },
      async ({ event }) => event.data,
    ),
    c.createFunction(
      {
        id: "bursting",
        throttle: { limit: 1, period: "1m", burst: 2, key: "event.data.k" },
        triggers: [{ event: "f/burst" }],
      },
      async ({ event }) => event.data,
    ),
    c.createFunction(
      { id: "prioritized", concurrency: 1, priority: { run: "event.data.p" }, triggers: [{ event: "f/priority" }] },
      async ({ event, step }) => {
        const name = (event.data as { name: string }).name;
        await step.run("start", async () => {
          starts.push(name);
          // The blocker holds the function's only slot until the others are queued.
          while (name === "blocker" && !released) await sleep(20);
        });
        return name;
      },
    ),
  ];
  await h.serveFunctions(fns);
  h.executor.start();
}, 60_000);

afterAll(async () => {
  released = true;
  await h?.close();
});

const data = <T>(run: { event: { data: unknown } }) => run.event.data as T;

describe("flow control", () => {
  test("rateLimit drops events past the limit per key within the period", async () => {
    await h.client.send([1, 2, 3, 4, 5].map((n) => ({ name: "f/rate", data: { k: "a", n } })));
    await h.client.send({ name: "f/rate", data: { k: "b", n: 6 } });
    await h.client.send({ name: "f/rate", data: { k: "a", n: 7 } });
    for (;;) {
      const runs = await runsOf(id("rate-limited"));
      if (runs.length >= 3 && runs.every((r) => r.status === "completed")) break;
      await sleep(50);
    }
    const runs = await runsOf(id("rate-limited"));
    expect(runs.map((r) => data<{ n: number }>(r).n).sort((a, b) => a - b)).toEqual([1, 2, 6]);
  });

  test("debounce runs once per key, with the last event", async () => {
    await h.client.send({ name: "f/debounce", data: { k: "x", n: 1 } });
    await h.client.send({ name: "f/debounce", data: { k: "x", n: 2 } });
    await h.client.send([
      { name: "f/debounce", data: { k: "x", n: 3 } },
      { name: "f/debounce", data: { k: "y", n: 4 } },
    ]);
    const x = await waitForRun(id("debounced"), (r) => r.status === "completed" && data<{ k: string }>(r).k === "x");
    await waitForRun(id("debounced"), (r) => r.status === "completed" && data<{ k: string }>(r).k === "y");
    expect(x.output).toEqual({ k: "x", n: 3 });
    expect(await runsOf(id("debounced"))).toHaveLength(2);
  });

  test("batchEvents hands one run every event of a full batch, and a partial batch after its timeout", async () => {
    // One send: a second one could arrive after the partial batch's timeout on a loaded machine.
    await h.client.send([1, 2, 3, 4, 5].map((n) => ({ name: "f/batch", data: { n } })));
    const full = await waitForRun(
      id("batched"),
      (r) => r.status === "completed" && (r.output as number[]).length === 3,
    );
    const partial = await waitForRun(
      id("batched"),
      (r) => r.status === "completed" && (r.output as number[]).length === 2,
    );
    expect(full.output).toEqual([1, 2, 3]);
    expect(partial.output).toEqual([4, 5]);
    expect(await runsOf(id("batched"))).toHaveLength(2);
  });

  test("throttle delays starts past the limit per period instead of dropping them", async () => {
    await h.client.send([1, 2, 3].map((n) => ({ name: "f/throttle", data: { n } })));
    for (;;) {
      const runs = await runsOf(id("throttled"));
      if (runs.length === 3 && runs.every((r) => r.status === "completed")) break;
      await sleep(50);
    }
    const [a = 0, b = 0, c = 0] = (await runsOf(id("throttled")))
      .map((r) => r.startedAt?.getTime() ?? 0)
      .sort((x, y) => x - y);
    // One period apart; the throttle's times are the database's and `startedAt` is rounded to the
    // millisecond, so allow that rounding.
    expect(b - a).toBeGreaterThanOrEqual(995);
    expect(c - b).toBeGreaterThanOrEqual(995);
  });

  test("throttle burst lets limit + burst runs of a key start at once, then one per period / limit", async () => {
    await h.client.send([1, 2, 3, 4].map((n) => ({ name: "f/burst", data: { k: "a", n } })));
    await h.client.send({ name: "f/burst", data: { k: "b", n: 5 } });
    // Without the burst only one run of "a" could start within the minute.
    for (;;) {
      const runs = await runsOf(id("bursting"));
      if (runs.filter((r) => r.status === "completed").length === 4) break;
      await sleep(50);
    }
    const runs = await runsOf(id("bursting"));
    const waiting = runs.filter((r) => r.status !== "completed");
    // Which of a's four waits depends on the order the executor claims their events in (it claims in
    // batches); exactly one of them does, and "b" never waits.
    expect(waiting.map((r) => data<{ k: string; n: number }>(r).k)).toEqual(["a"]);
    const first = Math.min(
      ...runs.filter((r) => data<{ k: string }>(r).k === "a" && r.startedAt).map((r) => r.startedAt?.getTime() ?? 0),
    );
    // The fourth start of "a" waits one emission interval (1 minute / 1) past the first.
    expect(waiting[0]?.status).toBe("queued");
    expect(waiting[0]?.dueAt?.getTime() ?? 0).toBeGreaterThanOrEqual(first + 59_000);
  });

  test("priority moves a run ahead of runs queued before it", async () => {
    await h.client.send({ name: "f/priority", data: { name: "blocker", p: 0 } });
    await waitForRun(id("prioritized"), (r) => r.status === "running");
    await h.client.send({ name: "f/priority", data: { name: "low", p: 0 } });
    await h.client.send({ name: "f/priority", data: { name: "high", p: 300 } });
    released = true;
    for (;;) {
      const runs = await runsOf(id("prioritized"));
      if (runs.length === 3 && runs.every((r) => r.status === "completed")) break;
      await sleep(50);
    }
    expect(starts).toEqual(["blocker", "high", "low"]);
  });
});
