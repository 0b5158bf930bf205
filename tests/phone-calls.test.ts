import { randomUUID } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { inboxes, ledgerEvents, phoneCalls } from "@/db/schema";
import { env } from "@/lib/env";
import { callPartition, sweepOverdueCalls } from "@/lib/phone/calls";
import { SIMULATED_ACCOUNT_SID, twilioAuthToken } from "@/lib/providers/telephony/credentials";
import { type FormParams, twilioSignature } from "@/lib/providers/telephony/signature";
import { type AppServer, startAppServer } from "./app-server";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";

/**
 * AI calls on the embedded simulated carrier: its call status callbacks reach the service over real
 * HTTP (the app's routes behind a loopback listener registered as PUBLIC_BASE_URL) in Twilio's
 * format, signed, on a fast clock (PHONE_SIM_STEP_MS).
 */

let app: AppServer;
const saved = { base: env.PUBLIC_BASE_URL, step: env.PHONE_SIM_STEP_MS };
const provisioned: { org: TestOrg; id: string }[] = [];

beforeAll(async () => {
  app = await startAppServer();
  env.PUBLIC_BASE_URL = app.url;
  env.PHONE_SIM_STEP_MS = 150;
}, 120_000);

afterAll(async () => {
  for (const p of provisioned) await call("POST", `/v1/phone/numbers/${p.id}/release`, { key: p.org.secret });
  env.PUBLIC_BASE_URL = saved.base;
  env.PHONE_SIM_STEP_MS = saved.step;
  await app?.close();
});

/** An organization with an active US number of the simulated carrier (a random free one). */
async function withNumber(org?: TestOrg) {
  const o = org ?? (await newOrg());
  const search = await call("GET", "/v1/phone/numbers/available?country=US&type=local&limit=100", { key: o.secret });
  const data = search.body.data as { phoneNumber: string }[];
  const phoneNumber = data[Math.floor(Math.random() * data.length)]?.phoneNumber;
  const made = await call("POST", "/v1/phone/numbers", { key: o.secret, body: { phoneNumber } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  provisioned.push({ org: o, id: made.body.id });
  return { org: o, numberId: made.body.id as string, number: made.body.phoneNumber as string };
}

const place = (org: TestOrg, body: Record<string, unknown>) =>
  call("POST", "/v1/phone/calls", { key: org.secret, body });

/** Polls the call until `done` holds (the carrier's callbacks arrive on its clock). */
async function until(org: TestOrg, id: string, done: (c: any) => boolean) {
  for (let i = 0; i < 150; i++) {
    const res = await call("GET", `/v1/phone/calls/${id}`, { key: org.secret });
    if (done(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`call ${id} never reached the expected state`);
}

async function eventsOf(callId: string) {
  return (await getDb())
    .select()
    .from(ledgerEvents)
    .where(eq(ledgerEvents.partitionKey, callPartition(callId)))
    .orderBy(asc(ledgerEvents.seq));
}

const INSTRUCTIONS =
  "Confirm tomorrow's appointment at 10:00. If it does not suit, offer 14:00 instead. Ask whether they need parking.";

describe("placing a call", () => {
  test("queued → ringing → in_progress → completed, events in order with contiguous seq, transcript, summary, recording", async () => {
    const { org, numberId, number } = await withNumber();
    const res = await place(org, {
      fromNumberId: numberId,
      to: "+13125550123",
      instructions: INSTRUCTIONS,
      greeting: "Hi, this is the clinic's assistant.",
      voice: "cedar",
      language: "en",
      maxDurationSeconds: 300,
      metadata: { ticket: "T-1" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      object: "phone_call",
      status: "queued",
      from: number,
      to: "+13125550123",
      voice: "cedar",
      metadata: { ticket: "T-1" },
      transcript: null,
      recording: null,
    });
    const seen = new Set<string>([res.body.status]);
    const done = await until(org, res.body.id, (c) => {
      seen.add(c.status);
      return c.status === "completed";
    });
    expect(done.timeline.map((t: { status: string }) => t.status)).toEqual([
      "queued",
      "ringing",
      "in_progress",
      "completed",
    ]);
    expect(done.answeredAt).not.toBeNull();
    expect(done.endedAt).not.toBeNull();
    expect(done.failureReason).toBeNull();

    const events = await eventsOf(res.body.id);
    expect(events.map((e) => e.type)).toEqual(Array(4).fill("call.status_changed"));
    expect(events.map((e) => (e.data as { status: string }).status)).toEqual([
      "queued",
      "ringing",
      "in_progress",
      "completed",
    ]);
    const first = events[0]?.seq ?? 0;
    expect(events.map((e) => e.seq)).toEqual([first, first + 1, first + 2, first + 3]);
    expect(events.every((e) => e.orgId === org.orgId)).toBe(true);

    // The transcript: turns with speaker and time, built from the greeting and the instructions.
    const turns = done.transcript.turns as { speaker: string; text: string; startSeconds: number }[];
    expect(turns.some((t) => t.speaker === "agent" && t.text === "Hi, this is the clinic's assistant.")).toBe(true);
    expect(turns.some((t) => t.speaker === "agent" && t.text === "If it does not suit, offer 14:00 instead.")).toBe(
      true,
    );
    expect(turns.some((t) => t.speaker === "callee")).toBe(true);
    const times = turns.map((t) => t.startSeconds);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(done.summary).toMatchObject({ outcome: "completed", turns: turns.length });
    expect(done.summary.keyPoints).toContain("Ask whether they need parking.");
    expect(done.durationSeconds).toBe(done.summary.durationSeconds);

    // The recording: a short-lived signed URL that downloads audio without a key; a tampered one is refused.
    expect(done.recording.engine).toMatch(/^(espeak-ng|silent)$/);
    const audio = await fetch(done.recording.url);
    expect(audio.status).toBe(200);
    const bytes = Buffer.from(await audio.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(44);
    expect(["RIFF", "OggS"]).toContain(bytes.toString("ascii", 0, 4));
    const tampered = new URL(done.recording.url);
    tampered.searchParams.set("expires", String(Number(tampered.searchParams.get("expires")) + 1));
    expect((await fetch(tampered)).status).toBe(403);

    // Newest first in the list.
    const second = await place(org, { fromNumberId: numberId, to: "+12025550191", instructions: "Hello." });
    const list = await call("GET", "/v1/phone/calls?limit=10", { key: org.secret });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([second.body.id, res.body.id]);
    const paged = await call("GET", "/v1/phone/calls?limit=1", { key: org.secret });
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.pagination.hasMore).toBe(true);
  });

  test("the busy, no-answer and failing magic callees end the call with its reason", async () => {
    const { org, numberId } = await withNumber();
    const cases = [
      ["+12025550191", "busy", ["queued", "ringing", "busy"]],
      ["+12025550192", "no_answer", ["queued", "ringing", "no_answer"]],
      ["+12025550193", "failed", ["queued", "failed"]],
    ] as const;
    const placed = await Promise.all(
      cases.map(([to]) => place(org, { fromNumberId: numberId, to, instructions: "Say hello." })),
    );
    for (const [i, [, status, path]] of cases.entries()) {
      const id = placed[i]?.body.id as string;
      const ended = await until(org, id, (c) => c.status === status);
      expect(ended.timeline.map((t: { status: string }) => t.status)).toEqual(path);
      expect(ended.failureReason).toBeTruthy();
      expect(ended.transcript).toBeNull();
      expect(ended.recording).toBeNull();
      expect((await eventsOf(id)).map((e) => (e.data as { status: string }).status)).toEqual(path);
    }
  });

  test("a repeated or late status callback is applied once; an unsigned one is 401 and changes nothing", async () => {
    const { org, numberId } = await withNumber();
    const res = await place(org, { fromNumberId: numberId, to: "+12025550192", instructions: "Say hello." });
    const ended = await until(org, res.body.id, (c) => c.status === "no_answer");
    const [row] = await (await getDb()).select().from(phoneCalls).where(eq(phoneCalls.id, res.body.id));
    const url = `${app.url}/v1/providers/twilio/events`;
    const token = await twilioAuthToken(await getDb());
    const post = async (status: string, signed = true) => {
      const params: FormParams = {
        AccountSid: SIMULATED_ACCOUNT_SID,
        CallSid: row?.providerCallId ?? "",
        CallStatus: status,
        From: row?.fromNumber ?? "",
        To: row?.toNumber ?? "",
      };
      return fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "X-Twilio-Signature": signed ? twilioSignature(token, url, params) : "bad",
        },
        body: new URLSearchParams(params as Record<string, string>).toString(),
      });
    };
    expect((await post("no-answer")).status).toBe(200);
    expect((await post("ringing")).status).toBe(200);
    expect((await post("completed")).status).toBe(200);
    expect((await post("completed", false)).status).toBe(401);
    const after = await call("GET", `/v1/phone/calls/${res.body.id}`, { key: org.secret });
    expect(after.body.status).toBe("no_answer");
    expect(after.body.timeline).toEqual(ended.timeline);
    expect(await eventsOf(res.body.id)).toHaveLength(3);
    // A CallSid nobody knows (yet): 409, so the provider retries it.
    const unknown: FormParams = {
      AccountSid: SIMULATED_ACCOUNT_SID,
      CallSid: `CA${"0".repeat(32)}`,
      CallStatus: "ringing",
    };
    const res409 = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "X-Twilio-Signature": twilioSignature(token, url, unknown),
      },
      body: new URLSearchParams(unknown as Record<string, string>).toString(),
    });
    expect(res409.status).toBe(409);
  });

  test("the sweeper ends a call whose provider never reported as failed, with its reason and event", async () => {
    const { org, numberId } = await withNumber();
    // The carrier's callbacks go nowhere (a closed port): the provider never reports.
    env.PUBLIC_BASE_URL = "http://127.0.0.1:9";
    let res: Awaited<ReturnType<typeof place>>;
    try {
      res = await place(org, { fromNumberId: numberId, to: "+13125550124", instructions: "Say hello." });
    } finally {
      env.PUBLIC_BASE_URL = app.url;
    }
    expect(res.status).toBe(201);
    const db = await getDb();
    // Not yet due: the sweeper leaves it.
    expect(await sweepOverdueCalls(db)).toBeGreaterThanOrEqual(0);
    expect((await call("GET", `/v1/phone/calls/${res.body.id}`, { key: org.secret })).body.status).toBe("queued");
    await db
      .update(phoneCalls)
      .set({ deadlineAt: new Date(Date.now() - 1000) })
      .where(eq(phoneCalls.id, res.body.id));
    expect(await sweepOverdueCalls(db)).toBeGreaterThanOrEqual(1);
    const ended = await call("GET", `/v1/phone/calls/${res.body.id}`, { key: org.secret });
    expect(ended.body.status).toBe("failed");
    expect(ended.body.failureReason).toMatch(/^deadline_exceeded/);
    expect(ended.body.timeline.map((t: { status: string }) => t.status)).toEqual(["queued", "failed"]);
    const events = await eventsOf(res.body.id);
    expect(events.map((e) => (e.data as { status: string }).status)).toEqual(["queued", "failed"]);
    expect(events[1]?.seq).toBe((events[0]?.seq ?? 0) + 1);
    // A second sweep finds nothing more to do with it.
    await sweepOverdueCalls(db);
    expect(await eventsOf(res.body.id)).toHaveLength(2);
  });
});

describe("validation and access", () => {
  test("bad bodies are 400 naming the field; a number that is not active is 409", async () => {
    const { org, numberId } = await withNumber();
    const bad = async (body: Record<string, unknown>, param: string) => {
      const res = await place(org, { fromNumberId: numberId, to: "+13125550123", instructions: "Hi.", ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.param).toBe(param);
    };
    await bad({ to: "3125550123" }, "to");
    await bad({ instructions: "x".repeat(8001) }, "instructions");
    await bad({ greeting: "x".repeat(501) }, "greeting");
    await bad({ voice: "robot" }, "voice");
    await bad({ maxDurationSeconds: 5 }, "maxDurationSeconds");
    const pending = await call("GET", "/v1/phone/numbers/available?country=GB&type=local&limit=100", {
      key: org.secret,
    });
    const gb = pending.body.data[Math.floor(Math.random() * pending.body.data.length)].phoneNumber;
    const made = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber: gb } });
    expect(made.body.status).toBe("pending");
    provisioned.push({ org, id: made.body.id });
    const refused = await place(org, { fromNumberId: made.body.id, to: "+13125550123", instructions: "Hi." });
    expect(refused.status).toBe(409);
    expect(refused.body.error.param).toBe("fromNumberId");
  });

  test("another organization's number and call are 404; phone:call places, phone:read reads", async () => {
    const { org, numberId } = await withNumber();
    const other = await newOrg();
    const res = await place(org, { fromNumberId: numberId, to: "+12025550191", instructions: "Hi." });
    expect(res.status).toBe(201);
    expect((await call("GET", `/v1/phone/calls/${res.body.id}`, { key: other.secret })).status).toBe(404);
    expect(
      (
        await call("POST", "/v1/phone/calls", {
          key: other.secret,
          body: { fromNumberId: numberId, to: "+12025550191", instructions: "Hi." },
        })
      ).body.error.param,
    ).toBe("fromNumberId");
    expect((await call("GET", "/v1/phone/calls", { key: other.secret })).body.data).toEqual([]);

    const reader = await newKey(org, { scopes: ["phone:read"] });
    const caller = await newKey(org, { scopes: ["phone:call"] });
    const body = { fromNumberId: numberId, to: "+12025550191", instructions: "Hi." };
    const denied = await call("POST", "/v1/phone/calls", { key: reader.secret, body });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("scope_missing");
    expect((await call("POST", "/v1/phone/calls", { key: caller.secret, body })).status).toBe(201);
    expect((await call("GET", `/v1/phone/calls/${res.body.id}`, { key: reader.secret })).status).toBe(200);
    const bundle = await newKey(org, { scopes: ["phone"] });
    expect((await call("POST", "/v1/phone/calls", { key: bundle.secret, body })).status).toBe(201);
  });
});

describe("inbound calls", () => {
  /** Twilio's voice webhook of a call from `from` to `to` (what the simulated carrier and Twilio post), signed or not. */
  const ring = async (from: string, to: string, callSid: string, signed = true) => {
    const url = `${app.url}/v1/providers/twilio/events`;
    const params: FormParams = {
      AccountSid: SIMULATED_ACCOUNT_SID,
      ApiVersion: "2010-04-01",
      CallSid: callSid,
      From: from,
      To: to,
      Direction: "inbound",
      CallStatus: "ringing",
    };
    return fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "X-Twilio-Signature": signed ? twilioSignature(await twilioAuthToken(await getDb()), url, params) : "bad",
      },
      body: new URLSearchParams(params as Record<string, string>).toString(),
    });
  };
  const callsOf = (callSid: string) =>
    getDb().then((db) => db.select().from(phoneCalls).where(eq(phoneCalls.providerCallId, callSid)));

  test("a signed voice webhook to a bound number: answered by its inbound assistant, ringing → in_progress → completed with transcript; a repeat is stored once; unsigned 401", async () => {
    const { org, numberId, number } = await withNumber();
    const inbox = await newInbox(org, "phone");
    const patched = await call("PATCH", `/v1/phone/numbers/${numberId}`, {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        inboundInstructions: "Take the caller's order. Read it back to them.",
        inboundGreeting: "Thanks for calling the bakery.",
        inboundVoice: "cedar",
        inboundLanguage: "en-GB",
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);

    const unsigned = `CA${"1".repeat(32)}`;
    expect((await ring("+13125550177", number, unsigned, false)).status).toBe(401);
    expect(await callsOf(unsigned)).toHaveLength(0);

    const callSid = `CA${randomUUID().replaceAll("-", "")}`;
    // Answered in TwiML (Twilio's voice webhook takes no JSON): the greeting said in the call's language.
    const answered = await ring("+13125550177", number, callSid);
    expect(answered.status).toBe(200);
    expect(answered.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    const twiml = await answered.text();
    expect(twiml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?><Response>.*<\/Response>$/);
    expect(twiml).toContain('<Say language="en-GB">Thanks for calling the bakery.</Say>');
    const repeated = await ring("+13125550177", number, callSid);
    expect(repeated.status).toBe(200);
    expect(await repeated.text()).toBe(twiml);
    const rows = await callsOf(callSid);
    expect(rows).toHaveLength(1);
    const id = rows[0]?.id ?? "";
    const done = await until(org, id, (c) => c.status === "completed");
    expect(done).toMatchObject({
      direction: "inbound",
      fromNumberId: numberId,
      from: "+13125550177",
      to: number,
      instructions: "Take the caller's order. Read it back to them.",
      greeting: "Thanks for calling the bakery.",
      voice: "cedar",
      language: "en-GB",
      failureReason: null,
    });
    expect(done.timeline.map((t: { status: string }) => t.status)).toEqual(["ringing", "in_progress", "completed"]);
    expect(done.transcript.turns.some((t: { text: string }) => t.text === "Thanks for calling the bakery.")).toBe(true);
    expect(done.summary).not.toBeNull();
    expect(done.recording?.url).toBeTruthy();
    const events = await eventsOf(id);
    expect(events.map((e) => (e.data as { status: string; direction: string }).status)).toEqual([
      "ringing",
      "in_progress",
      "completed",
    ]);
    expect(
      events.every(
        (e) => e.type === "call.status_changed" && (e.data as { direction: string }).direction === "inbound",
      ),
    ).toBe(true);
    const first = events[0]?.seq ?? 0;
    expect(events.map((e) => e.seq)).toEqual([first, first + 1, first + 2]);
    // Listed with the organization's calls; another organization does not see it.
    const listed = await call("GET", "/v1/phone/calls", { key: org.secret });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(id);
    expect((await call("GET", `/v1/phone/calls/${id}`, { key: (await newOrg()).secret })).status).toBe(404);
  });

  test("a number bound to an agent answers with the defaults; an unbound number's call is rejected and not recorded", async () => {
    const { org, numberId, number } = await withNumber();
    const unbound = `CA${randomUUID().replaceAll("-", "")}`;
    const rejected = await ring("+13125550178", number, unbound);
    expect(rejected.status).toBe(200);
    expect(await rejected.text()).toContain("<Response><Reject");
    expect(await callsOf(unbound)).toHaveLength(0);

    const agent = (await call("POST", "/v1/agents", { key: org.secret, body: { display: "Receptionist" } })).body.agent;
    const bound = await call("PATCH", `/v1/phone/numbers/${numberId}`, {
      key: org.secret,
      body: { agentId: agent.id },
    });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    const callSid = `CA${randomUUID().replaceAll("-", "")}`;
    const answered = await ring("+13125550178", number, callSid);
    expect(answered.status).toBe(200);
    // No inboundGreeting: the caller is greeted by the default (named after the agent), never silence.
    const greeting = "Hello, you have reached Receptionist. How can I help?";
    expect(await answered.text()).toContain(`<Say language="en">${greeting}</Say>`);
    const [row] = await callsOf(callSid);
    const done = await until(org, row?.id ?? "", (c) => c.status === "completed");
    expect(done).toMatchObject({ direction: "inbound", voice: "marin", language: "en", greeting });
    expect(done.transcript.turns.find((t: { speaker: string }) => t.speaker === "agent")?.text).toBe(greeting);
    expect(done.metadata).toEqual({ agentId: agent.id });
  });

  test("a number bound to an inbox without inboundGreeting: greeted with the inbox's name in the inbound language", async () => {
    const { org, numberId, number } = await withNumber();
    const inbox = await newInbox(org, "desk");
    const patched = await call("PATCH", `/v1/phone/numbers/${numberId}`, {
      key: org.secret,
      body: { inboxId: inbox.id, inboundLanguage: "pt-BR", inboundVoice: "bossa" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const [row] = await getDb().then((db) => db.select().from(inboxes).where(eq(inboxes.id, inbox.id)));
    const name = row?.displayName?.trim() || row?.address || "";
    const greeting = `Olá, você ligou para ${name}. Como posso ajudar?`;
    const callSid = `CA${randomUUID().replaceAll("-", "")}`;
    const answered = await ring("+13125550179", number, callSid);
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain(`<Say language="pt-BR">${greeting}</Say>`);
    const [made] = await callsOf(callSid);
    expect(made).toMatchObject({ greeting, voice: "bossa", language: "pt-BR" });
    const done = await until(org, made?.id ?? "", (c) => c.status === "completed");
    expect(done.transcript.turns.find((t: { speaker: string }) => t.speaker === "agent")?.text).toBe(greeting);
  });
});
