import { randomBytes } from "node:crypto";
import { afterAll, expect, test } from "vitest";
import { startFakeLlm } from "./fakes/openai";
import { CrashProcesses, crashApi, phaseClock } from "./fixtures/crash/processes";

/**
 * kill -9 of a real server process between a schema-inbox message's commit and its extraction: the
 * message is stored `pending` with its `message.extract` outbox entry, the process dies while the
 * (stalled) fake LLM holds its answer, and the restarted process's outbox relay performs the entry:
 * the message ends `validated` with exactly one `message.received`. On PostgreSQL it runs in a
 * database of its own.
 */

const run = randomBytes(4).toString("hex");
const processes = new CrashProcesses();
const llmReady = startFakeLlm();
afterAll(async () => {
  await processes.close();
  await (await llmReady).close();
});

test("kill -9 while the LLM extracts a stored message: after the restart it is extracted once", {
  timeout: 150_000,
}, async () => {
  const llm = await llmReady;
  llm.answer = () => ({ content: JSON.stringify({ orderId: "7" }) });
  const { base, env } = await processes.serverEnv("extract", () => ({
    OUTBOX_LEASE_SECONDS: "3",
    LLM_BASE_URL: llm.baseUrl,
    LLM_TIMEOUT_MS: "60000",
  }));
  const { phase, phases } = phaseClock();
  const first = await processes.start({ ...env, SEED: "1" });
  phase("firstUp");
  const secret = first.info.secret ?? "";
  const inboxId = first.info.inboxId ?? "";
  const api = crashApi(base, secret);
  const got = (await api("GET", `/v1/inboxes/${inboxId}`)).body;
  const inbox = (got.inbox ?? got) as { address: string };
  const schema = await api("PUT", `/v1/inboxes/${inboxId}/schema`, {
    schema: { orderId: { type: "integer", required: true } },
  });
  expect(schema.status, JSON.stringify(schema.body)).toBe(200);
  const sender = await api("POST", "/v1/inboxes", { address: `sender-${run}@svc.localhost` });
  expect(sender.status, JSON.stringify(sender.body)).toBe(200);

  const release = llm.stall();
  const sent = await api("POST", "/v1/messages", {
    inboxId: sender.body.inbox.id,
    to: [inbox.address],
    subject: "Order",
    text: "order seven",
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const listed = (await api("GET", `/v1/messages?inboxId=${inboxId}`)).body.messages as {
    id: string;
    extractionStatus: string | null;
  }[];
  const messageId = listed[0]?.id ?? "";
  expect(listed[0]?.extractionStatus).toBe("pending");
  // The process performs its entry after the commit and is now waiting for the LLM: kill it there.
  for (let i = 0; i < 200 && llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  expect(llm.requests.length).toBe(1);
  first.child.kill("SIGKILL");
  await first.exited;
  phase("killed");
  release();

  await processes.start(env);
  phase("secondUp");
  let message: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) {
    message = (await api("GET", `/v1/messages/${messageId}`)).body.message;
    if (message.extractionStatus !== "pending") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  phase("extracted");
  console.log("extraction-crash phases (ms)", phases);
  expect(message).toMatchObject({ extractionStatus: "validated", structured: { orderId: 7 } });
  expect(llm.requests.length).toBe(2);
  const received = (
    (await api("GET", "/v1/events?type=message.received&limit=100")).body.data as {
      data: Record<string, unknown>;
    }[]
  ).filter((e) => e.data.messageId === messageId);
  expect(received).toHaveLength(1);
});
