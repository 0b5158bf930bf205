import { afterAll, beforeAll, expect, test } from "vitest";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { call, newInbox, newOrg } from "../harness";
import { type Harness, startHarness, waitForRun } from "./harness";

/** An erasure requested through the API runs as the app's compliance-job function on the executor, one step per kind of data. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
});
afterAll(async () => {
  await h.close();
});

test("POST /v1/compliance/erasures → the compliance-job run → completed with its certificate", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "erase");
  const subject = `wf-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect(
    (await call("POST", "/v1/messages", { key: org.secret, body: { inboxId: inbox.id, to: subject, text: "x" } }))
      .status,
  ).toBe(200);
  const req = await call("POST", "/v1/compliance/erasures", { key: org.secret, body: { address: subject } });
  expect(req.status).toBe(202);
  const run = await waitForRun(
    "svc-compliance-job",
    (r) => r.status === "completed" && (r.event.data as { jobId: string }).jobId === req.body.job.id,
  );
  expect(run.status).toBe("completed");
  const job = (await call("GET", `/v1/compliance/erasures/${req.body.job.id}`, { key: org.secret })).body.job;
  expect(job).toMatchObject({
    status: "completed",
    counts: { messages: 1 },
    certificate: { type: "svc.deletion_certificate.v1", alg: "EdDSA" },
  });
  expect(JSON.stringify((await call("GET", "/v1/messages", { key: org.secret })).body)).not.toContain(subject);
}, 120_000);
