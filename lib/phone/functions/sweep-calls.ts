import { cron } from "inngest";
import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { sweepOverdueCalls } from "../calls";

/**
 * Every minute: ends calls past their deadline (`maxDurationSeconds` + margin) that the provider
 * never finished as `failed`, with the reason and its `call.status_changed` event, so no call stays
 * queued, ringing or in progress (lib/phone/calls.ts `sweepOverdueCalls`; a retry finds less to do).
 * Before that it posts the simulated carrier's due callbacks (a backstop of its own timer).
 */
export const sweepPhoneCalls = inngest.createFunction(
  {
    id: "sweep-phone-calls",
    name: "End overdue phone calls",
    triggers: [cron("* * * * *")],
    concurrency: { limit: 1 },
    retries: 3,
  },
  async ({ step }) => {
    // The simulated carrier's due callbacks first (its clock lives in the database): a call it still
    // runs after a restart finishes on its own instead of being ended by the deadline.
    const posted = await step.run("advance-simulated-carrier", async () => {
      const { drainSimulatedCarrier } = await import("@/lib/providers/telephony/simulated");
      return drainSimulatedCarrier();
    });
    const ended = await step.run("end-overdue-calls", async () => sweepOverdueCalls(await getDb()));
    return { posted, ended };
  },
);
