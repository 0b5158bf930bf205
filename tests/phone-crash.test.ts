import { afterAll, expect, test } from "vitest";
import { CrashProcesses, crashApi, phaseClock } from "./fixtures/crash/processes";

/**
 * kill -9 of a real server process while a call is ringing on the simulated carrier: the carrier's
 * clock is in the database (`simulated_carrier_callbacks`), so a restarted process on the same
 * database posts the steps that fell due while none ran, and the call ends `completed` with its
 * transcript and a `call.status_changed` event per status, contiguous in `seq` (no sweeper, no
 * deadline involved). The processes listen on one fixed port (`CRASH_PORT`, `PUBLIC_BASE_URL`):
 * the callback URL a carrier holds survives the restart, as Twilio's would. On PostgreSQL it runs
 * in a database of its own.
 */

const STEP_MS = 1500;
const processes = new CrashProcesses();
afterAll(() => processes.close());

test("kill -9 while a call rings on the simulated carrier: the restarted process finishes it (completed, transcript, contiguous events)", {
  timeout: 150_000,
}, async () => {
  const { base, env } = await processes.serverEnv("phone", () => ({
    PHONE_SIM_STEP_MS: String(STEP_MS),
    OUTBOX_LEASE_SECONDS: "5",
  }));
  const { phase, phases } = phaseClock();
  const first = await processes.start({ ...env, SEED: "1" });
  phase("firstUp");
  const secret = first.info.secret ?? "";
  expect(secret).not.toBe("");
  const api = crashApi(base, secret);

  const search = await api("GET", "/v1/phone/numbers/available?country=US&type=local&limit=1");
  const phoneNumber = search.body.data[0].phoneNumber as string;
  const number = await api("POST", "/v1/phone/numbers", { phoneNumber });
  expect(number.status, JSON.stringify(number.body)).toBe(201);
  const placed = await api("POST", "/v1/phone/calls", {
    fromNumberId: number.body.id,
    to: "+13125550123",
    instructions: "Remind them of the delivery at noon. Ask them to be home.",
    maxDurationSeconds: 60,
  });
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  const id = placed.body.id as string;

  const until = async (done: (c: any) => boolean, what: string) => {
    for (let i = 0; i < 300; i++) {
      const res = await api("GET", `/v1/phone/calls/${id}`);
      if (done(res.body)) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`call never ${what}`);
  };
  // Ringing, not yet answered: the carrier's next two steps are rows in the database only.
  await until((c) => c.status === "ringing", "rang");
  first.child.kill("SIGKILL");
  await first.exited;
  phase("killed");

  await processes.start(env);
  phase("secondUp");
  const done = await until((c) => c.status === "completed", "completed after the restart");
  expect(done.timeline.map((t: { status: string }) => t.status)).toEqual([
    "queued",
    "ringing",
    "in_progress",
    "completed",
  ]);
  phase("completed");
  console.log("phone-crash phases (ms)", phases);
  expect(done.failureReason).toBeNull();
  expect(done.transcript.turns.length).toBeGreaterThan(2);

  const events = (await api("GET", "/v1/events?type=call.status_changed&limit=100")).body.data.filter(
    (e: { data: { callId: string } }) => e.data.callId === id,
  ) as { seq: number; partitionKey: string; data: { status: string } }[];
  expect(events.map((e) => e.data.status)).toEqual(["queued", "ringing", "in_progress", "completed"]);
  expect(new Set(events.map((e) => e.partitionKey))).toEqual(new Set([`call:${id}`]));
  const first0 = events[0]?.seq ?? 0;
  expect(events.map((e) => e.seq)).toEqual([first0, first0 + 1, first0 + 2, first0 + 3]);
});
