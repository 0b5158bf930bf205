import { cron } from "inngest";
import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { env } from "@/lib/env";
import { expireDueWaits } from "../service";

/**
 * Every minute (`WAITS_SWEEP_CRON`): expires verification waits past `expiresAt` with `verification.expired`
 * (lib/waits/service.ts `expireDueWaits`; a retry finds less to do). Reads settle a due wait at
 * once, so the minute only delays the event of a wait nobody looks at.
 */
export const sweepVerificationWaits = inngest.createFunction(
  {
    id: "sweep-verification-waits",
    name: "Expire verification waits",
    triggers: [cron(env.WAITS_SWEEP_CRON)],
    concurrency: { limit: 1 },
    retries: 3,
  },
  async ({ step }) => {
    const expired = await step.run("expire-due-waits", async () => expireDueWaits(await getDb()));
    return { expired };
  },
);
