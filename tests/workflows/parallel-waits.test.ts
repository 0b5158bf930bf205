import type { InngestFunction } from "inngest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Harness, runsOf, sleep, startHarness, waitForRun } from "./harness";

/**
 * Several sleeps, waits and invokes awaited at once (`Promise.all`) through the
 * SDK's real `serve()`: they start together, park the run once, and an outcome that arrives while
 * the run is executing another step is not lost.
 */
let h: Harness;
const id = (fn: string) => `${h.client.id}-${fn}`;
let released = false;

beforeAll(async () => {
  h = await startHarness();
  const c = h.client;
  const child = c.createFunction({ id: "pw-child", triggers: [{ event: "pw/child" }] }, async ({ event }) => ({
    doubled: (event.data as { n: number }).n * 2,
  }));
  const fns: InngestFunction.Any[] = [
    child,
    c.createFunction({ id: "pw-all", triggers: [{ event: "pw/all" }] }, async ({ event, step }) => {
      const k = (event.data as { k: string }).k;
      const [, go, invoked] = await Promise.all([
        step.sleep("nap", "1s"),
        step.waitForEvent("go", { event: "pw/go", timeout: "1m", if: `async.data.k == '${k}'` }),
        step.invoke("call-child", { function: child, data: { n: 21 } }),
      ]);
      return { go: (go?.data as { n: number } | undefined)?.n ?? null, invoked };
    }),
    c.createFunction({ id: "pw-busy", triggers: [{ event: "pw/busy" }] }, async ({ step }) => {
      const [, go] = await Promise.all([
        step.run("busy", async () => {
          while (!released) await sleep(20);
          return "done";
        }),
        step.waitForEvent("busy-go", { event: "pw/busy-go", timeout: "1m" }),
      ]);
      return (go?.data as { n: number } | undefined)?.n ?? null;
    }),
  ];
  await h.serveFunctions(fns);
  h.executor.start();
}, 60_000);

afterAll(async () => {
  released = true;
  await h?.close();
});

describe("several sleeps, waits and invokes awaited at once", () => {
  test("Promise.all of a sleep, a waitForEvent and an invoke parks once on all three and resumes with every outcome", async () => {
    await h.client.send({ name: "pw/all", data: { k: "a" } });
    await waitForRun(id("pw-all"), (r) => (r.waits ?? []).some((w) => w.kind === "event"));
    await waitForRun(id("pw-child"), (r) => r.status === "completed");
    await h.client.send({ name: "pw/go", data: { k: "b", n: 1 } }); // not this run's key
    await h.client.send({ name: "pw/go", data: { k: "a", n: 2 } });
    const done = await waitForRun(id("pw-all"), (r) => r.status === "completed");
    expect(done.output).toEqual({ go: 2, invoked: { doubled: 42 } });
    // All three started before any of them ended (one after another, the sleep would end first).
    const names = ["nap", "go", "call-child"];
    const started = done.history.filter(
      (e) => names.includes(e.name) && (e.status === "sleeping" || e.status === "waiting"),
    );
    const firstEnd = done.history.findIndex((e) => names.includes(e.name) && e.status === "completed");
    expect(started).toHaveLength(3);
    expect(started.every((e) => done.history.indexOf(e) < firstEnd)).toBe(true);
    expect(done.waits).toBeNull();
    expect(done.resolved).toBeNull();
    // One child run: resuming after each outcome never started the invoke again.
    expect(await runsOf(id("pw-child"))).toHaveLength(1);
  });

  test("an event for a wait that started beside a step still running is not lost", async () => {
    await h.client.send({ name: "pw/busy" });
    // The wait is pending while the run executes its step.
    await waitForRun(id("pw-busy"), (r) => r.status === "running" && (r.waits?.length ?? 0) === 1);
    await h.client.send({ name: "pw/busy-go", data: { n: 7 } });
    await waitForRun(id("pw-busy"), (r) => r.resolved !== null);
    released = true;
    const done = await waitForRun(id("pw-busy"), (r) => r.status === "completed");
    expect(done.output).toBe(7);
  });
});
