import { getDb } from "@/db";
import { inngest } from "@/inngest/client";
import { failJob, finishJob, runJobStep } from "../job-steps";
import { complianceJobRequested } from "../workflow-events";

/**
 * An erasure or inbox purge (lib/compliance/jobs.ts): one memoized step per kind of data, then the
 * signed certificate. Each step deletes by subject, so a retry or a resumed run only finds less to
 * do; after the last retry the job is `failed` with the reason.
 */
export const complianceJob = inngest.createFunction(
  {
    id: "compliance-job",
    name: "Erase a data subject or purge an inbox",
    triggers: [complianceJobRequested.trigger],
    concurrency: { limit: 2 },
    retries: 4,
    onFailure: async ({ event, error }) => {
      // The failed run's event; one that never matched the schema named no job to fail.
      const original = complianceJobRequested.schema.safeParse(
        (event.data as { event?: { data?: unknown } }).event?.data,
      );
      if (original.success) await failJob(await getDb(), original.data.jobId, error.message);
    },
  },
  async ({ event, step }) => {
    const { jobId } = event.data;
    await step.run("messages", async () => runJobStep(await getDb(), jobId, "messages"));
    await step.run("handles", async () => runJobStep(await getDb(), jobId, "handles"));
    await step.run("audit", async () => runJobStep(await getDb(), jobId, "audit"));
    await step.run("certificate", async () => finishJob(await getDb(), jobId));
    return { jobId };
  },
);
