import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { advanceDueLetter, nextStepOf } from "../lifecycle";
import { letterSimulate } from "../workflow-events";

/** More than the simulated path's steps: a step found not due (moved meanwhile by `progress`) costs one. */
const MAX_ROUNDS = 20;

/**
 * The simulated print centre's clock for one test letter: sleeps until the letter's stored
 * `next_step_at`, moves it one status (re-checked under the row lock, so `progress` or the sweeper
 * moving it first makes this a no-op), and again until it is final. The time lives in the row, the
 * sleeps in the executor's store: a restart resumes where it was; the sweeper is the safety net.
 */
export const simulateLetter = inngest.createFunction(
  {
    id: "simulate-letter",
    name: "Simulated print centre: move a test letter",
    triggers: [letterSimulate.trigger],
    retries: 5,
  },
  async ({ event, step }) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const due = await step.run(`next-${round}`, async () => nextStepOf(await getDb(), event.data.letterId));
      if (!due) return { rounds: round };
      await step.sleepUntil(`wait-${round}`, due);
      await step.run(`advance-${round}`, async () => {
        const moved = await advanceDueLetter(await getDb(), event.data.letterId);
        return moved?.status ?? null;
      });
    }
    return { rounds: MAX_ROUNDS };
  },
);
