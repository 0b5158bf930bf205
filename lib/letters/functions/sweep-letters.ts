import { cron } from "inngest";
import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { advanceDueLetters } from "../lifecycle";

/**
 * Every minute: moves test letters whose `next_step_at` passed (the safety net of the
 * `simulate-letter` workflow, e.g. for letters whose run was lost), one step each.
 */
export const sweepLetters = inngest.createFunction(
  {
    id: "sweep-letters",
    name: "Move overdue test letters",
    triggers: [cron("* * * * *")],
    concurrency: { limit: 1 },
    retries: 3,
  },
  async ({ step }) => {
    const moved = await step.run("advance-due-letters", async () => advanceDueLetters(await getDb()));
    return { moved };
  },
);
