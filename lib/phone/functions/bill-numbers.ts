import { cron } from "inngest";
import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { billDueNumbers } from "../billing";

/**
 * Hourly: charges the next month of every number whose paid period ended, under the account
 * budget's `maxSpendPerDayCents`; a refused charge records `budget.tripped` and is tried again a
 * day later, and past the grace the number is released as unpaid (lib/phone/billing.ts). Each
 * period is charged once however often this runs.
 */
export const billPhoneNumbers = inngest.createFunction(
  {
    id: "bill-phone-numbers",
    name: "Charge the monthly cost of phone numbers",
    triggers: [cron("17 * * * *")],
    concurrency: { limit: 1 },
    retries: 3,
  },
  async ({ step }) => step.run("charge-due-numbers", async () => billDueNumbers(await getDb())),
);
