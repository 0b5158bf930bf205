import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import {
  agents,
  type CallTimelineEntry,
  inboxes,
  type PhoneCallStatus,
  phoneCalls,
  phoneNumbers,
  providerCallbacks,
} from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { ApiError, notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { appendEvents } from "@/lib/events/ledger";
import { log } from "@/lib/log";
import { enqueueOutbox, finishOutbox, newLeaseToken, type OutboxRow } from "@/lib/outbox/store";
import { telephony } from "@/lib/providers/telephony";
import { callbackUrl } from "@/lib/providers/telephony/simulated";
import { storage } from "@/lib/providers/storage";
import { voiceAgent } from "@/lib/providers/telephony/voice-agent";
import { type CallSummary, recordingKey, recordingUrl, type Turn } from "./call-artifacts";
import type { PhoneCall } from "./contracts";
import { findNumber } from "./number";

/**
 * AI phone calls: placed (`createCall`: the row, its first `call.status_changed` event, the audit
 * row and the outbox entry that starts it at the provider commit together; the provider is called
 * after the commit), moved by the provider's status callbacks (`applyCallStatus`, once per
 * `CallSid` and status), and ended by the sweeper (`sweepOverdueCalls`) when the provider never
 * reported a final status before the deadline (`maxDurationSeconds` + `DEADLINE_MARGIN_SECONDS`).
 */

export type PhoneCallRow = typeof phoneCalls.$inferSelect;

export const CALL_START_KIND = "phone.call.start";
export const CALL_ANSWER_KIND = "phone.call.answer";
/** What a number without its own `inbound*` settings answers with (the spec's defaults). */
export const INBOUND_DEFAULTS = {
  instructions:
    "You are the assistant of this number. Greet the caller, ask how you can help, take a message with their name and number, and say someone will call back.",
  voice: "marin",
  language: "en",
  maxDurationSeconds: 600,
} as const;
/** The greeting of a number without `inboundGreeting`, by the first subtag of its inbound language (English otherwise). */
const DEFAULT_GREETINGS: Record<string, (name: string) => string> = {
  en: (name) => `Hello, you have reached ${name}. How can I help?`,
  pt: (name) => `Olá, você ligou para ${name}. Como posso ajudar?`,
  es: (name) => `Hola, ha llamado a ${name}. ¿En qué puedo ayudarle?`,
  fr: (name) => `Bonjour, vous êtes bien chez ${name}. Comment puis-je vous aider ?`,
  de: (name) => `Hallo, Sie sind verbunden mit ${name}. Wie kann ich helfen?`,
};

/** What an inbound call hears first when its number has no `inboundGreeting`: never silence. */
export function defaultInboundGreeting(name: string, language: string): string {
  const say = DEFAULT_GREETINGS[language.toLowerCase().split("-")[0] ?? ""] ?? DEFAULT_GREETINGS.en;
  return (say ?? ((n: string) => n))(name);
}

/** The name a caller is greeted with: the bound inbox's display name (or address), the agent's, else the number. */
async function nameOfNumber(tx: DbOrTx, number: typeof phoneNumbers.$inferSelect): Promise<string> {
  if (number.inboxId) {
    const [inbox] = await tx
      .select({ displayName: inboxes.displayName, address: inboxes.address })
      .from(inboxes)
      .where(eq(inboxes.id, number.inboxId));
    if (inbox) return inbox.displayName?.trim() || inbox.address;
  }
  if (number.agentId) {
    const [agent] = await tx.select({ display: agents.display }).from(agents).where(eq(agents.id, number.agentId));
    if (agent) return agent.display;
  }
  return number.phoneNumber;
}

/** Time a call may spend queued and ringing on top of its `maxDurationSeconds` before the sweeper ends it. */
export const DEADLINE_MARGIN_SECONDS = 120;

const OPEN: PhoneCallStatus[] = ["queued", "ringing", "in_progress"];
const RANK: Record<PhoneCallStatus, number> = {
  queued: 0,
  ringing: 1,
  in_progress: 2,
  completed: 3,
  failed: 3,
  no_answer: 3,
  busy: 3,
};

export const callPartition = (id: string) => `call:${id}`;

async function toPhoneCall(db: DbOrTx, r: PhoneCallRow): Promise<PhoneCall> {
  const rec = r.recording as {
    contentType: string;
    durationSeconds: number;
    engine: "espeak-ng" | "silent";
    note: string | null;
  } | null;
  return {
    object: "phone_call",
    id: r.id,
    direction: r.direction,
    fromNumberId: r.numberId,
    from: r.fromNumber,
    to: r.toNumber,
    status: r.status,
    instructions: r.instructions,
    greeting: r.greeting,
    voice: r.voice as PhoneCall["voice"],
    language: r.language,
    maxDurationSeconds: r.maxDurationSeconds,
    metadata: r.metadata,
    timeline: r.timeline,
    failureReason: r.failureReason,
    durationSeconds: (r.summary as CallSummary | null)?.durationSeconds ?? null,
    transcript: (r.transcript as { turns: Turn[] } | null) ?? null,
    summary: (r.summary as CallSummary | null) ?? null,
    recording:
      rec && r.recordingKey
        ? {
            ...(await recordingUrl(db, r.id)),
            contentType: rec.contentType,
            durationSeconds: rec.durationSeconds,
            engine: rec.engine,
            note: rec.note,
          }
        : null,
    createdAt: r.createdAt.toISOString(),
    answeredAt: r.answeredAt?.toISOString() ?? null,
    endedAt: r.endedAt?.toISOString() ?? null,
  };
}

/** The `call.status_changed` event of a transition (in the transaction that makes it). */
function statusEvent(row: PhoneCallRow, previous: PhoneCallStatus | null, entry: CallTimelineEntry) {
  return {
    orgId: row.orgId,
    type: "call.status_changed" as const,
    partitionKey: callPartition(row.id),
    data: {
      callId: row.id,
      status: entry.status,
      previousStatus: previous,
      reason: entry.reason,
      at: entry.at,
      direction: row.direction,
      fromNumberId: row.numberId,
      from: row.fromNumber,
      to: row.toNumber,
    },
  };
}

export interface CreateCallBody {
  fromNumberId: string;
  to: string;
  instructions: string;
  greeting?: string;
  voice: string;
  language: string;
  maxDurationSeconds: number;
  metadata?: Record<string, unknown>;
}

export async function createCall(db: Db, principal: Principal, body: CreateCallBody): Promise<PhoneCall> {
  const token = newLeaseToken();
  const { row, entry } = await db.transaction(async (tx) => {
    const number = await findNumber(tx, principal, body.fromNumberId, { param: "fromNumberId" });
    if (number.status !== "active")
      throw new ApiError(
        "conflict",
        `The number is ${number.status}: calls are placed from active numbers.`,
        "fromNumberId",
      );
    if (!number.capabilities.includes("voice"))
      throw new ApiError("conflict", "The number has no voice capability.", "fromNumberId");
    const now = new Date();
    const first: CallTimelineEntry = { status: "queued", at: now.toISOString(), reason: null };
    const [inserted] = await tx
      .insert(phoneCalls)
      .values({
        orgId: principal.orgId,
        numberId: number.id,
        direction: "outbound",
        fromNumber: number.phoneNumber,
        toNumber: body.to,
        status: "queued",
        instructions: body.instructions,
        greeting: body.greeting ?? null,
        voice: body.voice,
        language: body.language,
        maxDurationSeconds: body.maxDurationSeconds,
        metadata: body.metadata ?? {},
        timeline: [first],
        provider: number.provider,
        deadlineAt: new Date(now.getTime() + (body.maxDurationSeconds + DEADLINE_MARGIN_SECONDS) * 1000),
        createdAt: now,
      })
      .returning();
    if (!inserted) throw new Error("phone call insert returned nothing");
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "phone_call.created",
      resourceType: "phone_call",
      resourceId: inserted.id,
      metadata: { fromNumberId: number.id, to: body.to },
    });
    const entry = await enqueueOutbox(
      tx,
      { orgId: principal.orgId, kind: CALL_START_KIND, subjectId: inserted.id, payload: { callId: inserted.id } },
      token,
    );
    await appendEvents(tx, [statusEvent(inserted, null, first)]);
    return { row: inserted, entry };
  });
  // After the commit: the provider is asked to place the call (a failure is retried by the relay).
  const { performOutbox } = await import("@/lib/outbox/relay");
  await performOutbox(db, entry, token, startCallEntry);
  return toPhoneCall(db, row);
}

/**
 * The outbox handler of `phone.call.start`: hands a committed `queued` call to the provider and
 * stores its call id (what its status callbacks name). A call no longer queued is left alone.
 */
export async function startCallEntry(db: Db, entry: OutboxRow, token: string): Promise<void> {
  const callId = (entry.payload as { callId?: string }).callId ?? "";
  const [call] = await db.select().from(phoneCalls).where(eq(phoneCalls.id, callId));
  if (!call || call.status !== "queued" || call.providerCallId) {
    await finishOutbox(db, entry.id, token, { status: "done", error: call ? `call is ${call.status}` : "call gone" });
    return;
  }
  const accepted = await telephony().startCall({
    from: call.fromNumber,
    to: call.toNumber,
    instructions: call.instructions,
    greeting: call.greeting,
    voice: call.voice,
    language: call.language,
    maxDurationSeconds: call.maxDurationSeconds,
    statusCallback: callbackUrl(),
  });
  await db.transaction(async (tx) => {
    if (!(await finishOutbox(tx, entry.id, token, { status: "done" }))) return;
    await tx
      .update(phoneCalls)
      .set({ providerCallId: accepted.sid, updatedAt: new Date() })
      .where(eq(phoneCalls.id, call.id));
  });
}

/**
 * An inbound call (the provider's voice webhook: `Direction=inbound`, `CallStatus=ringing`) to a
 * live number bound to an inbox or an agent: recorded as a call (`direction: "inbound"`, `ringing`,
 * the number's `inbound*` assistant or the defaults) with its first `call.status_changed` event and
 * an outbox entry that has the provider answer it with that assistant, in one transaction; once per
 * `CallSid` (`provider_callbacks` and the unique `provider_call_id`). Returns the call's row — also
 * for a repeated webhook of a call recorded before, so its reply is the same TwiML —, or null for a
 * call to an unknown, inactive or unbound number (not recorded; the caller rejects it).
 */
export async function answerInboundCall(
  db: Db,
  p: { callSid: string; from: string; to: string },
): Promise<PhoneCallRow | null> {
  const token = newLeaseToken();
  const made = await db.transaction(async (tx) => {
    const [number] = await tx
      .select()
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.phoneNumber, p.to), eq(phoneNumbers.status, "active")));
    if (!number || (!number.inboxId && !number.agentId) || !number.capabilities.includes("voice")) return null;
    const [fresh] = await tx
      .insert(providerCallbacks)
      .values({ provider: "twilio", callbackKey: `${p.callSid}:inbound` })
      .onConflictDoNothing()
      .returning({ key: providerCallbacks.callbackKey });
    if (!fresh) return { row: await inboundCallOf(tx, p.callSid, number.id), entry: null };
    const now = new Date();
    const first: CallTimelineEntry = { status: "ringing", at: now.toISOString(), reason: null };
    const maxDurationSeconds = INBOUND_DEFAULTS.maxDurationSeconds;
    const language = number.inboundLanguage ?? INBOUND_DEFAULTS.language;
    const greeting = number.inboundGreeting ?? defaultInboundGreeting(await nameOfNumber(tx, number), language);
    const [row] = await tx
      .insert(phoneCalls)
      .values({
        orgId: number.orgId,
        numberId: number.id,
        direction: "inbound",
        fromNumber: p.from,
        toNumber: number.phoneNumber,
        status: "ringing",
        instructions: number.inboundInstructions ?? INBOUND_DEFAULTS.instructions,
        greeting,
        voice: number.inboundVoice ?? INBOUND_DEFAULTS.voice,
        language,
        maxDurationSeconds,
        metadata: {
          ...(number.inboxId ? { inboxId: number.inboxId } : {}),
          ...(number.agentId ? { agentId: number.agentId } : {}),
        },
        timeline: [first],
        provider: number.provider,
        providerCallId: p.callSid,
        deadlineAt: new Date(now.getTime() + (maxDurationSeconds + DEADLINE_MARGIN_SECONDS) * 1000),
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return { row: await inboundCallOf(tx, p.callSid, number.id), entry: null };
    const entry = await enqueueOutbox(
      tx,
      { orgId: number.orgId, kind: CALL_ANSWER_KIND, subjectId: row.id, payload: { callId: row.id } },
      token,
    );
    await appendEvents(tx, [statusEvent(row, null, first)]);
    return { row, entry };
  });
  if (!made?.row) return null;
  if (made.entry) {
    const { performOutbox } = await import("@/lib/outbox/relay");
    await performOutbox(db, made.entry, token, answerCallEntry);
  }
  return made.row;
}

/** The inbound call recorded before under `callSid` to the number `numberId` (a repeated voice webhook). */
async function inboundCallOf(db: DbOrTx, callSid: string, numberId: string): Promise<PhoneCallRow | null> {
  const [row] = await db
    .select()
    .from(phoneCalls)
    .where(
      and(
        eq(phoneCalls.providerCallId, callSid),
        eq(phoneCalls.numberId, numberId),
        eq(phoneCalls.direction, "inbound"),
      ),
    );
  return row ?? null;
}

/** The outbox handler of `phone.call.answer`: the provider answers a still-ringing inbound call with its assistant. */
export async function answerCallEntry(db: Db, entry: OutboxRow, token: string): Promise<void> {
  const callId = (entry.payload as { callId?: string }).callId ?? "";
  const [call] = await db.select().from(phoneCalls).where(eq(phoneCalls.id, callId));
  if (call?.status === "ringing" && call.providerCallId)
    await telephony().answerCall({
      callSid: call.providerCallId,
      from: call.fromNumber,
      to: call.toNumber,
      instructions: call.instructions,
      greeting: call.greeting,
      voice: call.voice,
      language: call.language,
      maxDurationSeconds: call.maxDurationSeconds,
      statusCallback: callbackUrl(),
    });
  await finishOutbox(db, entry.id, token, {
    status: "done",
    error: call ? (call.status === "ringing" ? null : `call is ${call.status}`) : "call gone",
  });
}

export async function listCalls(db: DbOrTx, principal: Principal, q: { limit: number; cursor?: string }) {
  const after = decodeCursor(q.cursor);
  const rows = await db
    .select()
    .from(phoneCalls)
    .where(and(eq(phoneCalls.orgId, principal.orgId), keysetBefore(phoneCalls.createdAt, phoneCalls.id, after)))
    .orderBy(sql`${phoneCalls.createdAt} desc`, sql`${phoneCalls.id} desc`)
    .limit(q.limit + 1);
  const { items, pagination } = toPage(rows, q.limit);
  return { object: "list" as const, data: await Promise.all(items.map((r) => toPhoneCall(db, r))), pagination };
}

export async function getCall(db: DbOrTx, principal: Principal, callId: string): Promise<PhoneCall> {
  const [row] = await db
    .select()
    .from(phoneCalls)
    .where(and(eq(phoneCalls.orgId, principal.orgId), eq(phoneCalls.id, callId)));
  if (!row) throw notFound("phone call", "callId");
  return toPhoneCall(db, row);
}

/** Twilio's `CallStatus` values as this service's statuses (`initiated` and `queued` change nothing). */
export function callStatusOf(twilio: string): PhoneCallStatus | null {
  switch (twilio) {
    case "ringing":
      return "ringing";
    case "in-progress":
    case "answered":
      return "in_progress";
    case "completed":
      return "completed";
    case "busy":
      return "busy";
    case "no-answer":
      return "no_answer";
    case "failed":
    case "canceled":
      return "failed";
    default:
      return null;
  }
}

const REASONS: Partial<Record<PhoneCallStatus, string>> = {
  busy: "The callee's line was busy.",
  no_answer: "The callee did not answer.",
};

/** The call's row in the caller's transaction, locked; moves it to `next` with its timeline entry and event. */
async function transition(
  tx: DbOrTx,
  row: PhoneCallRow,
  next: PhoneCallStatus,
  reason: string | null,
  extra: Partial<typeof phoneCalls.$inferInsert> = {},
): Promise<PhoneCallRow> {
  const now = new Date();
  const entry: CallTimelineEntry = { status: next, at: now.toISOString(), reason };
  const final = RANK[next] === 3;
  const [updated] = await tx
    .update(phoneCalls)
    .set({
      status: next,
      timeline: [...row.timeline, entry],
      updatedAt: now,
      ...(next === "in_progress" ? { answeredAt: now } : {}),
      ...(final ? { endedAt: now } : {}),
      ...(final && next !== "completed" ? { failureReason: reason } : {}),
      ...extra,
    })
    .where(eq(phoneCalls.id, row.id))
    .returning();
  if (!updated) throw new Error("phone call update returned nothing");
  await appendEvents(tx, [statusEvent(updated, row.status, entry)]);
  return updated;
}

/**
 * A Twilio call status callback (verified by the caller): applied once per `CallSid` and status
 * (`provider_callbacks`, in the transaction that applies it). Statuses only move forward: a late
 * `ringing` after `in-progress`, or anything after a final status, is acknowledged and ignored.
 * `completed` brings the voice agent's transcript, summary and recording (stored before the transaction). False
 * when no call has this `CallSid` (yet: the caller answers 409 so the provider retries).
 */
export async function applyCallStatus(
  db: DbOrTx,
  callSid: string,
  twilioStatus: string,
  params: { sipCode?: string | null },
) {
  const [known] = await db.select().from(phoneCalls).where(eq(phoneCalls.providerCallId, callSid));
  if (!known) return { known: false as const, applied: 0 };
  const next = callStatusOf(twilioStatus);
  if (!next || RANK[next] <= RANK[known.status] || RANK[known.status] === 3)
    return { known: true as const, applied: 0 };

  let artifacts: Partial<typeof phoneCalls.$inferInsert> = {};
  if (next === "completed") {
    const { turns, summary, recording } = await voiceAgent().conversation(known);
    const key = recordingKey(known.orgId, known.id);
    await storage().put(key, recording.bytes, { contentType: recording.contentType });
    artifacts = {
      transcript: { turns },
      summary: { ...summary },
      recordingKey: key,
      recording: {
        contentType: recording.contentType,
        filename: recording.filename,
        durationSeconds: recording.durationSeconds,
        engine: recording.engine,
        note: recording.note,
      },
    };
  }
  return db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(providerCallbacks)
      .values({ provider: "twilio", callbackKey: `${callSid}:${twilioStatus}` })
      .onConflictDoNothing()
      .returning({ key: providerCallbacks.callbackKey });
    if (!fresh) return { known: true as const, applied: 0 };
    const [row] = await tx.select().from(phoneCalls).where(eq(phoneCalls.id, known.id)).for("update");
    if (!row || RANK[next] <= RANK[row.status] || RANK[row.status] === 3) return { known: true as const, applied: 0 };
    // Passing through a status the provider skipped (answered without a ringing callback) is not invented: only what it said.
    const reason =
      next === "failed"
        ? `The carrier could not place the call${params.sipCode ? ` (SIP ${params.sipCode})` : ""}.`
        : (REASONS[next] ?? null);
    await transition(tx, row, next, reason, artifacts);
    return { known: true as const, applied: 1 };
  });
}

/**
 * Ends every call past its deadline that is still open as `failed`, with its reason, timeline entry
 * and event (the guaranteed final state: a provider that never reports leaves no call in progress).
 * Returns the number ended.
 */
export async function sweepOverdueCalls(db: Db, now = new Date()): Promise<number> {
  const due = await db
    .select({ id: phoneCalls.id })
    .from(phoneCalls)
    .where(and(inArray(phoneCalls.status, OPEN), lt(phoneCalls.deadlineAt, now)))
    .limit(500);
  let ended = 0;
  for (const { id } of due) {
    const done = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(phoneCalls).where(eq(phoneCalls.id, id)).for("update");
      if (!row || !OPEN.includes(row.status) || row.deadlineAt >= now) return false;
      await transition(
        tx,
        row,
        "failed",
        `deadline_exceeded: the provider reported no final status within maxDurationSeconds + ${DEADLINE_MARGIN_SECONDS} s (last status ${row.status}).`,
      );
      return true;
    });
    if (done) ended++;
  }
  if (ended > 0) log.info("phone calls ended by the sweeper", { ended });
  return ended;
}
