import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getDb, getDbHandle } from "@/db";
import { simulatedCarrierCallbacks } from "@/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { callbackUrl, SIMULATED_ACCOUNT_SID, twilioAuthToken } from "./credentials";
import { countSegments } from "./segments";
import { type FormParams, SIGNATURE_HEADER, twilioSignature } from "./signature";
import type {
  AnsweredCall,
  CallAccepted,
  InventoryNumber,
  InventoryQuery,
  NumberType,
  OutboundCall,
  OutboundSms,
  Provisioned,
  SmsAccepted,
  TelephonyProvider,
} from "./types";

/**
 * The embedded telephony provider: a simulated carrier with fictional numbers only (the ranges
 * reserved for drama: US/CA `+1 NPA 555 0100–0199`, UK `+44 7700 900xxx` and `+44 20 7946 0xxx`,
 * AU `+61 2/3 5550 0100–0199`),
 * a purchasable inventory per country, UK and AU numbers `pending` until documents are given, and SMS
 * whose status callbacks arrive on a clock (`PHONE_SIM_STEP_MS`) in Twilio's webhook format, signed
 * with `X-Twilio-Signature`, at this service's own `POST /v1/providers/twilio/events` — the path
 * Twilio's callbacks take. A message to a number of this carrier is also delivered to it (an
 * inbound callback), so two numbers of the deployment can text each other. Magic recipient:
 * `+12025550194` is undeliverable (`undelivered`, error 30034: an unregistered A2P 10DLC sender).
 * Calls ring one step after they are placed, are answered the next and complete after the
 * conversation's length in steps (at most 3), each as a Twilio call status callback (`CallSid`,
 * `CallStatus`, `CallDuration` on completion). Magic callees: `+12025550191` busy, `+12025550192`
 * no answer, `+12025550193` failed (no ringing).
 */

export const UNDELIVERABLE_SMS = "+12025550194";
export const UNDELIVERABLE_ERROR = 30034;
export const BUSY_CALLEE = "+12025550191";
export const NO_ANSWER_CALLEE = "+12025550192";
export const FAILING_CALLEE = "+12025550193";

interface Range {
  country: string;
  type: NumberType;
  /** E.164 prefix; the inventory is prefix + every suffix of `suffixes`. */
  prefix: string;
  suffixes: [number, number, number];
  locality: string | null;
  region: string | null;
  capabilities: string[];
  monthlyCostCents: number;
  setupCostCents: number;
  /** Regulatory documents the country asks for before the number is active. */
  requirements: Record<string, unknown> | null;
}

const us = (npa: string, locality: string, region: string): Range => ({
  country: "US",
  type: "local",
  prefix: `+1${npa}555`,
  suffixes: [100, 199, 4],
  locality,
  region,
  capabilities: ["sms", "voice"],
  monthlyCostCents: 115,
  setupCostCents: 0,
  requirements: null,
});

const UK_REQUIREMENTS = {
  bundle: "UK regulatory bundle",
  documents: [
    { type: "proof_of_address", description: "A utility bill or bank statement under 3 months old, in the UK." },
    { type: "identity", description: "The end user's name and business registration." },
  ],
};

const AU_REQUIREMENTS = {
  bundle: "Australian regulatory bundle",
  documents: [{ type: "proof_of_address", description: "An address in Australia, with a document showing it." }],
};

/** AU landlines: ACMA reserves `(0x) 5550 xxxx` for fictional use; `+61 2` Sydney, `+61 3` Melbourne. */
const au = (area: string, locality: string, region: string): Range => ({
  country: "AU",
  type: "local",
  prefix: `+61${area}5550`,
  suffixes: [100, 199, 4],
  locality,
  region,
  capabilities: ["voice"],
  monthlyCostCents: 300,
  setupCostCents: 0,
  requirements: AU_REQUIREMENTS,
});

const RANGES: Range[] = [
  us("202", "Washington", "DC"),
  us("212", "New York", "NY"),
  us("312", "Chicago", "IL"),
  us("415", "San Francisco", "CA"),
  { ...us("800", "", ""), type: "toll_free", locality: null, region: null, monthlyCostCents: 215 },
  { ...us("416", "Toronto", "ON"), country: "CA" },
  { ...us("604", "Vancouver", "BC"), country: "CA" },
  {
    country: "GB",
    type: "mobile",
    prefix: "+447700900",
    suffixes: [0, 999, 3],
    locality: null,
    region: null,
    capabilities: ["sms", "voice"],
    monthlyCostCents: 100,
    setupCostCents: 0,
    requirements: UK_REQUIREMENTS,
  },
  {
    country: "GB",
    type: "local",
    prefix: "+442079460",
    suffixes: [0, 999, 3],
    locality: "London",
    region: "England",
    capabilities: ["voice"],
    monthlyCostCents: 100,
    setupCostCents: 0,
    requirements: UK_REQUIREMENTS,
  },
  au("2", "Sydney", "NSW"),
  au("3", "Melbourne", "VIC"),
];

const numbersOf = (r: Range): InventoryNumber[] => {
  const [from, to, width] = r.suffixes;
  const out: InventoryNumber[] = [];
  for (let s = from; s <= to; s++) {
    out.push({
      phoneNumber: r.prefix + String(s).padStart(width, "0"),
      countryCode: r.country,
      numberType: r.type,
      locality: r.locality || null,
      region: r.region || null,
      capabilities: r.capabilities,
      monthlyCostCents: r.monthlyCostCents,
      setupCostCents: r.setupCostCents,
    });
  }
  return out;
};

const rangeOf = (phoneNumber: string): Range | undefined =>
  RANGES.find((r) => phoneNumber.startsWith(r.prefix) && phoneNumber.length === r.prefix.length + r.suffixes[2]);

/** Whether the number is one of this carrier's (inside its fictional ranges). */
export const isSimulatedNumber = (phoneNumber: string): boolean => {
  const r = rangeOf(phoneNumber);
  if (!r) return false;
  const suffix = Number(phoneNumber.slice(r.prefix.length));
  return suffix >= r.suffixes[0] && suffix <= r.suffixes[1];
};

const sid = (prefix: string) => prefix + randomBytes(16).toString("hex");

export { callbackUrl } from "./credentials";

/**
 * Posts one Twilio-format callback to the service, signed. True when it was taken (2xx) or refused
 * for good (a 4xx other than 409 and 429); false when it should be tried again (409: a status
 * callback that raced the send's commit; 429, 5xx and unreachable: later).
 */
async function postOnce(url: string, params: FormParams): Promise<boolean> {
  const token = await twilioAuthToken(await getDb());
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        [SIGNATURE_HEADER]: twilioSignature(token, url, params),
      },
      body: body.toString(),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    return res.ok || (res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 409);
  } catch {
    return false;
  }
}

/** Posts one callback now, retried a few times while it is not taken (the console's "text this number"). */
async function postCallback(url: string, params: FormParams): Promise<void> {
  for (let attempt = 1; attempt <= 6; attempt++) {
    if (await postOnce(url, params)) return;
    if (attempt === 6) log.warn("simulated carrier: callback failed", { url });
    else await new Promise((r) => setTimeout(r, 250 * attempt));
  }
}

/**
 * The carrier's clock, durable: each future callback is a row of `simulated_carrier_callbacks`
 * due `steps` × `PHONE_SIM_STEP_MS` from now, posted by `drainSimulatedCarrier` (a timer of this
 * process, `startSimulatedCarrier` at start, and the per-minute call sweep), so a restart between
 * two steps of a call resumes it instead of leaving it to the sweeper.
 */
const LEASE_MS = 20_000;
const GIVE_UP_ATTEMPTS = 40;
let timer: NodeJS.Timeout | null = null;
let timerAt = Number.POSITIVE_INFINITY;
let draining: Promise<number> | null = null;

function wakeAt(at: number) {
  if (timer && timerAt <= at) return;
  if (timer) clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(
    () => {
      timer = null;
      timerAt = Number.POSITIVE_INFINITY;
      void drainSimulatedCarrier().catch((err: unknown) =>
        log.warn("simulated carrier: drain failed", { err: String(err) }),
      );
    },
    Math.max(0, at - Date.now()),
  );
  timer.unref?.();
}

async function schedule(url: string, steps: { steps: number; params: FormParams }[]): Promise<void> {
  const now = Date.now();
  const rows = steps.map((s) => ({
    url,
    params: s.params as Record<string, string>,
    dueAt: new Date(now + s.steps * env.PHONE_SIM_STEP_MS),
  }));
  await (await getDb()).insert(simulatedCarrierCallbacks).values(rows);
  wakeAt(Math.min(...rows.map((r) => r.dueAt.getTime())));
}

/**
 * Posts every due callback of the carrier in due order, one at a time (a call's steps arrive in
 * order); one that is not taken is tried again later (its lease), and dropped after
 * `GIVE_UP_ATTEMPTS`. Then sets this process's timer for the next one. Returns the number posted.
 */
export function drainSimulatedCarrier(): Promise<number> {
  draining ??= drainOnce().finally(() => {
    draining = null;
  });
  return draining;
}

async function drainOnce(): Promise<number> {
  const db = await getDb();
  let posted = 0;
  for (;;) {
    const [row] = await db
      .update(simulatedCarrierCallbacks)
      .set({
        leaseUntil: sql`now() + ${`${LEASE_MS} milliseconds`}::interval`,
        attempts: sql`${simulatedCarrierCallbacks.attempts} + 1`,
      })
      .where(
        eq(
          simulatedCarrierCallbacks.id,
          sql`(select id from ${simulatedCarrierCallbacks} where ${simulatedCarrierCallbacks.dueAt} <= now() and (${simulatedCarrierCallbacks.leaseUntil} is null or ${simulatedCarrierCallbacks.leaseUntil} < now()) order by ${simulatedCarrierCallbacks.dueAt}, ${simulatedCarrierCallbacks.id} limit 1 for update skip locked)`,
        ),
      )
      .returning();
    if (!row) break;
    if ((await postOnce(row.url, row.params)) || row.attempts >= GIVE_UP_ATTEMPTS) {
      if (row.attempts >= GIVE_UP_ATTEMPTS) log.warn("simulated carrier: callback dropped", { url: row.url });
      await db.delete(simulatedCarrierCallbacks).where(eq(simulatedCarrierCallbacks.id, row.id));
      posted++;
    } else {
      // Not taken yet: again shortly (a status callback racing the commit that stores its CallSid).
      await db
        .update(simulatedCarrierCallbacks)
        .set({ leaseUntil: new Date(Date.now() + Math.min(5000, 250 * row.attempts)) })
        .where(eq(simulatedCarrierCallbacks.id, row.id));
      break;
    }
  }
  const [next] = await db
    .select({
      at: sql<Date>`greatest(${simulatedCarrierCallbacks.dueAt}, ${simulatedCarrierCallbacks.leaseUntil})`.mapWith(
        simulatedCarrierCallbacks.dueAt,
      ),
    })
    .from(simulatedCarrierCallbacks)
    .orderBy(sql`1`)
    .limit(1);
  if (next) wakeAt(next.at.getTime());
  return posted;
}

/**
 * At start: posts what fell due while no process ran (a restart mid-call) and sets the timer for
 * the rest. On the embedded database a leased row belongs to a process that died (only one process
 * opens it), so its lease is lifted at once; on PostgreSQL it expires (`LEASE_MS`).
 */
export async function startSimulatedCarrier(): Promise<void> {
  if ((await getDbHandle()).kind === "pglite")
    await (await getDb()).update(simulatedCarrierCallbacks).set({ leaseUntil: null });
  await drainSimulatedCarrier();
}

export const simulatedCarrier: TelephonyProvider = {
  name: "simulated",
  verified: () => Promise.resolve(true),
  search: (q: InventoryQuery) =>
    Promise.resolve(
      RANGES.filter((r) => r.country === q.country && (!q.type || r.type === q.type))
        .flatMap(numbersOf)
        .filter((n) => !q.contains || n.phoneNumber.slice(1).includes(q.contains)),
    ),
  lookup(phoneNumber) {
    const r = isSimulatedNumber(phoneNumber) ? rangeOf(phoneNumber) : undefined;
    return Promise.resolve(r ? (numbersOf(r).find((n) => n.phoneNumber === phoneNumber) ?? null) : null);
  },
  provision(n): Promise<Provisioned> {
    const r = rangeOf(n.phoneNumber);
    return Promise.resolve({
      providerId: sid("PN"),
      status: r?.requirements ? "pending" : "active",
      requirements: r?.requirements ?? {},
    });
  },
  release: () => Promise.resolve(),
  async sendSms(m: OutboundSms): Promise<SmsAccepted> {
    const messageSid = sid("SM");
    const common = {
      AccountSid: SIMULATED_ACCOUNT_SID,
      ApiVersion: "2010-04-01",
      MessageSid: messageSid,
      SmsSid: messageSid,
      From: m.from,
      To: m.to,
    };
    const undeliverable = m.to === UNDELIVERABLE_SMS;
    const steps: { steps: number; params: FormParams }[] = [
      { steps: 1, params: { ...common, MessageStatus: "sent", SmsStatus: "sent" } },
      {
        steps: 2,
        params: undeliverable
          ? {
              ...common,
              MessageStatus: "undelivered",
              SmsStatus: "undelivered",
              ErrorCode: String(UNDELIVERABLE_ERROR),
            }
          : { ...common, MessageStatus: "delivered", SmsStatus: "delivered" },
      },
    ];
    // A message to one of this carrier's numbers arrives there (the service drops it unless the number is bound).
    if (!undeliverable && isSimulatedNumber(m.to)) {
      const inboundSid = sid("SM");
      steps.push({
        steps: 2,
        params: {
          AccountSid: SIMULATED_ACCOUNT_SID,
          ApiVersion: "2010-04-01",
          MessageSid: inboundSid,
          SmsSid: inboundSid,
          SmsMessageSid: inboundSid,
          SmsStatus: "received",
          From: m.from,
          To: m.to,
          Body: m.body,
          NumMedia: "0",
          NumSegments: String(countSegments(m.body).segments),
        },
      });
    }
    await schedule(m.statusCallback, steps);
    return { sid: messageSid, status: "queued", errorCode: null };
  },
  async startCall(c: OutboundCall): Promise<CallAccepted> {
    const callSid = sid("CA");
    const common = {
      AccountSid: SIMULATED_ACCOUNT_SID,
      ApiVersion: "2010-04-01",
      CallSid: callSid,
      From: c.from,
      To: c.to,
      Direction: "outbound-api",
    };
    const status = (steps: number, CallStatus: string, extra: Record<string, string> = {}) => ({
      steps,
      params: { ...common, CallStatus, ...extra },
    });
    await schedule(
      c.statusCallback,
      c.to === FAILING_CALLEE
        ? [status(1, "failed", { SipResponseCode: "503" })]
        : c.to === BUSY_CALLEE
          ? [status(1, "ringing"), status(2, "busy", { SipResponseCode: "486" })]
          : c.to === NO_ANSWER_CALLEE
            ? [status(1, "ringing"), status(2, "no-answer", { SipResponseCode: "480" })]
            : [status(1, "ringing"), status(2, "in-progress"), status(3, "completed")],
    );
    return { sid: callSid };
  },
  async answerCall(a: AnsweredCall): Promise<void> {
    const common = {
      AccountSid: SIMULATED_ACCOUNT_SID,
      ApiVersion: "2010-04-01",
      CallSid: a.callSid,
      From: a.from,
      To: a.to,
      Direction: "inbound",
    };
    await schedule(a.statusCallback, [
      { steps: 1, params: { ...common, CallStatus: "in-progress" } },
      { steps: 2, params: { ...common, CallStatus: "completed" } },
    ]);
  },
};

/** Posts an inbound SMS to the service as the carrier would (the console's and the README's "text this number"). */
export async function simulateInboundSms(from: string, to: string, body: string): Promise<string> {
  const messageSid = sid("SM");
  await postCallback(callbackUrl(), {
    AccountSid: SIMULATED_ACCOUNT_SID,
    ApiVersion: "2010-04-01",
    MessageSid: messageSid,
    SmsSid: messageSid,
    SmsMessageSid: messageSid,
    SmsStatus: "received",
    From: from,
    To: to,
    Body: body,
    NumMedia: "0",
    NumSegments: String(countSegments(body).segments),
  });
  return messageSid;
}

/**
 * Rings one of the service's numbers from `from` as the carrier would: Twilio's voice webhook
 * (`Direction=inbound`, `CallStatus=ringing`), signed, to the service's callback URL. The service
 * records the call and answers it with the number's inbound assistant; the carrier then reports
 * `in-progress` and `completed` on its clock. Returns the `CallSid`.
 */
export async function simulateInboundCall(from: string, to: string): Promise<string> {
  const callSid = sid("CA");
  await postCallback(callbackUrl(), {
    AccountSid: SIMULATED_ACCOUNT_SID,
    ApiVersion: "2010-04-01",
    CallSid: callSid,
    From: from,
    To: to,
    Direction: "inbound",
    CallStatus: "ringing",
  });
  return callSid;
}
