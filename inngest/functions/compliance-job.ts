import { getDb } from "@/db";
import { failJob, finishJob, runJobStep } from "@/lib/compliance/jobs";
import { events, inngest } from "../client";

/**
 * An erasure or inbox purge (lib/compliance/jobs.ts): one memoized step per kind of data, then the
 * signed certificate. Each step deletes by subject, so a retry or a resumed run only finds less to
 * do; after the last retry the job is `failed` with the reason.
 */
export const complianceJob = inngest.createFunction(
  {
    id: "compliance-job",
    name: "Erase a data subject or purge an inbox",
    triggers: [events.complianceJobRequested],
    concurrency: { limit: 2 },
    retries: 4,
    onFailure: async ({ event, error }) => {
      const data = (event.data as { event?: { data?: { jobId?: string } } }).event?.data;
      if (data?.jobId) await failJob(await getDb(), data.jobId, error.message);
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
