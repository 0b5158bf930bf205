import { and, asc, desc, eq, gte, lte, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { messages, verificationWaits } from "@/db/schema";
import { mayUseInbox, type Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/audit/service";
import { channelDefinition } from "@/lib/channels/definitions";
import { ApiError, notFound, uniqueViolation } from "@/lib/core/errors";
import { appendEvent } from "@/lib/events/ledger";
import { findInbox } from "@/lib/inboxes/service";
import { log } from "@/lib/log";
import type { VerificationWait } from "./contracts";
import { hintMatches } from "./hint";
import { activeMatcher, llmConfig } from "./llm";
import { type MatchInput, type MatchResult, matchDeterministic } from "./matcher";

/**
 * Verification waits. A wait is a row; everything that settles it runs in a transaction that
 * holds the inbox's wait lock (`lockInbox`), so it is durable (a restart loses nothing: the state
 * is the row) and race-free:
 * - an inbound message of the inbox resolves its pending waits in the message's own transaction
 *   (`settleWaitsFor`, called by `storeMessage` where `message.received` is appended) — or, when
 *   the LLM matcher would have to read it (`LLM_BASE_URL` set and a pending wait accepts its sender),
 *   in the short transaction that ends its deferred extraction (lib/messages/extraction.ts), with the
 *   matches computed before that transaction (`matchWaits`): nothing leaves the process inside one;
 * - a registration also considers the inbox's messages of the last `LOOKBACK_SECONDS`: a message
 *   stored before the registration took the lock is either committed (then the look-back sees it)
 *   or still holds the lock (then the registration waits for its commit and sees it) — and one
 *   stored after sees the wait. The look-back covers the agent that triggers the code and only then
 *   registers, while the mail is already in. A message whose extraction is still `pending` is
 *   skipped: it settles the waits registered by then when its extraction ends;
 * - expiry: reads settle a wait past `expiresAt` at once, and the sweeper (`expireDueWaits`, every
 *   minute) emits `verification.expired` for the rest.
 */

export type WaitRow = typeof verificationWaits.$inferSelect;
type MessageRow = typeof messages.$inferSelect;

export const LOOKBACK_SECONDS = 15;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toWait(r: WaitRow): VerificationWait {
  return {
    object: "verification_wait",
    waitId: r.id,
    inboxId: r.inboxId,
    status: r.status,
    expiresAt: r.expiresAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    agentId: r.agentId,
    fromHint: r.fromHint,
    instruction: r.instruction,
    result: r.result,
    resultKind: r.resultKind === "code" || r.resultKind === "link" ? r.resultKind : null,
    from: r.fromAddress,
    messageId: r.messageId,
    idempotencyKey: r.idempotencyKey,
    resolvedAt: iso(r.resolvedAt),
    expiredAt: iso(r.expiredAt),
  };
}

/** Serializes everything that settles waits of one inbox (registration, inbound messages). */
async function lockInbox(tx: DbOrTx, inboxId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`svc:waits:${inboxId}`}))`);
}

/**
 * Whether the message's sender may resolve the wait: with a hint, only an authenticated sender
 * (the channel's `senderAuth` over the stored metadata: email needs an aligned DMARC pass) whose
 * address the hint matches exactly or by domain; without one, any sender but a DMARC failure.
 */
export function senderAccepted(
  wait: Pick<WaitRow, "fromHint">,
  message: Pick<MessageRow, "channel" | "channelMetadata" | "fromAddress">,
): boolean {
  const auth = channelDefinition(message.channel).senderAuth?.(message.channelMetadata ?? {}) ?? "authenticated";
  if (!wait.fromHint) return auth !== "failed";
  return auth === "authenticated" && hintMatches(wait.fromHint, message.fromAddress);
}

const matchInput = (m: MessageRow): MatchInput => ({ subject: m.subject, text: m.textBody, html: m.htmlBody });

/** Whether `wait` could take `message` now: pending, not past its deadline, the sender accepted. */
const candidate = (wait: WaitRow, message: MessageRow, now: Date) =>
  wait.status === "pending" && wait.expiresAt > now && senderAccepted(wait, message);

/**
 * Resolves `wait` from `message` when it matches. `matched`: the match computed beforehand (outside
 * the transaction); undefined: the deployment's matcher runs here.
 */
async function tryResolve(
  tx: DbOrTx,
  wait: WaitRow,
  message: MessageRow,
  now: Date,
  matched?: MatchResult | null,
): Promise<WaitRow | null> {
  if (!candidate(wait, message, now)) return null;
  const match = matched !== undefined ? matched : await activeMatcher().match(matchInput(message), wait.instruction);
  if (!match) return null;
  const [row] = await tx
    .update(verificationWaits)
    .set({
      status: "resolved",
      result: match.value,
      resultKind: match.kind,
      fromAddress: message.fromAddress,
      messageId: message.id,
      resolvedAt: now,
    })
    .where(and(eq(verificationWaits.id, wait.id), eq(verificationWaits.status, "pending")))
    .returning();
  if (!row) return null;
  await appendEvent(tx, {
    orgId: row.orgId,
    type: "verification.resolved",
    partitionKey: `inbox:${row.inboxId}`,
    inboxId: row.inboxId,
    messageId: message.id,
    threadId: message.threadId,
    data: {
      waitId: row.id,
      inboxId: row.inboxId,
      messageId: message.id,
      result: row.result,
      resultKind: row.resultKind,
      from: row.fromAddress,
      resolvedAt: now.toISOString(),
    },
  });
  return row;
}

/** The inbox's pending waits, oldest first; with `registeredBy`, only those registered by it plus the look-back. */
async function pendingWaits(db: DbOrTx, inboxId: string, registeredBy?: Date): Promise<WaitRow[]> {
  // A message delivered late (a quarantined one, released; one whose extraction ran after its commit)
  // settles only the waits registered before it arrived or within the look-back after it, as a
  // registration's look-back would have seen it.
  const cutoff = registeredBy ? new Date(registeredBy.getTime() + LOOKBACK_SECONDS * 1000) : null;
  return db
    .select()
    .from(verificationWaits)
    .where(
      and(
        eq(verificationWaits.inboxId, inboxId),
        eq(verificationWaits.status, "pending"),
        cutoff ? lte(verificationWaits.createdAt, cutoff) : undefined,
      ),
    )
    .orderBy(asc(verificationWaits.createdAt));
}

/** Matches computed before the settling transaction, by wait id (null: no match). */
export type WaitMatches = Map<string, MatchResult | null>;

/**
 * Whether the deployment's matcher calls out (an LLM provider): then no transaction runs it — the
 * matches are computed before, and a transaction that finds a candidate without one is retried.
 */
export const matcherCallsOut = () => llmConfig() !== null;

/** Rounds of "candidates without a match": the last one matches the newcomers deterministically. */
export const MATCH_ROUNDS = 4;

/** Thrown by `settleWaitsFor` given `matches` when a candidate wait has none (registered since). */
export class UnmatchedWaits extends Error {
  constructor(
    readonly waits: WaitRow[],
    readonly forMessage: MessageRow,
  ) {
    super(`${waits.length} wait(s) registered since the matches were computed`);
    this.name = "UnmatchedWaits";
  }
}

/**
 * Takes the inbox's wait lock and tells whether an inbound message from this sender would make the
 * matcher read it: some pending wait of the inbox accepts the sender. Called by `storeMessage` (with
 * an LLM configured) before it decides to defer the message's matching past its commit; the lock,
 * held to the commit, keeps a registration from slipping in between.
 */
export async function lockAndCheckWaits(
  tx: DbOrTx,
  inboxId: string,
  message: Pick<MessageRow, "channel" | "channelMetadata" | "fromAddress">,
): Promise<boolean> {
  await lockInbox(tx, inboxId);
  const now = new Date();
  return (await pendingWaits(tx, inboxId)).some((w) => w.expiresAt > now && senderAccepted(w, message));
}

/**
 * Runs the deployment's matcher (the LLM one may call out) for the waits `message` could settle —
 * outside any transaction. `waits`: only these (those `UnmatchedWaits` named); else the inbox's
 * pending waits registered by `registeredBy` plus the look-back. One call per distinct instruction.
 */
export async function matchWaits(
  db: DbOrTx,
  message: MessageRow,
  opts: { registeredBy?: Date; waits?: WaitRow[] } = {},
): Promise<WaitMatches> {
  const waits = opts.waits ?? (await pendingWaits(db, message.inboxId, opts.registeredBy));
  const now = new Date();
  const byInstruction = new Map<string, MatchResult | null>();
  const out: WaitMatches = new Map();
  for (const wait of waits) {
    if (!candidate(wait, message, now)) continue;
    const key = wait.instruction ?? "";
    if (!byInstruction.has(key))
      byInstruction.set(key, await activeMatcher().match(matchInput(message), wait.instruction));
    out.set(wait.id, byInstruction.get(key) ?? null);
  }
  return out;
}

/**
 * Called in the transaction that stores an inbound message and appends its `message.received`
 * (or releases a quarantined one, or ends a deferred extraction): resolves the inbox's pending
 * waits the message satisfies. With `matches` (computed by `matchWaits` before the transaction) no
 * matcher call is made here: a candidate wait without one throws `UnmatchedWaits` (the caller
 * matches it outside and retries), or with `fallback` is matched by the deterministic matcher.
 */
export async function settleWaitsFor(
  tx: DbOrTx,
  message: MessageRow,
  opts: { registeredBy?: Date; matches?: WaitMatches; fallback?: boolean } = {},
): Promise<void> {
  if (message.direction !== "inbound") return;
  await lockInbox(tx, message.inboxId);
  const pending = await pendingWaits(tx, message.inboxId, opts.registeredBy);
  const now = new Date();
  const matches = opts.matches;
  if (matches && !opts.fallback) {
    const missing = pending.filter((w) => candidate(w, message, now) && !matches.has(w.id));
    if (missing.length > 0) throw new UnmatchedWaits(missing, message);
  }
  for (const wait of pending) {
    const matched = matches
      ? matches.has(wait.id)
        ? (matches.get(wait.id) ?? null)
        : matchDeterministic(matchInput(message), wait.instruction)
      : undefined;
    await tryResolve(tx, wait, message, now, matched);
  }
}

async function expireRow(tx: DbOrTx, wait: WaitRow, now: Date, reason: "timeout" | "cancelled"): Promise<WaitRow> {
  const [row] = await tx
    .update(verificationWaits)
    .set({ status: "expired", expiredAt: now })
    .where(and(eq(verificationWaits.id, wait.id), eq(verificationWaits.status, "pending")))
    .returning();
  if (!row) return wait;
  await appendEvent(tx, {
    orgId: row.orgId,
    type: "verification.expired",
    partitionKey: `inbox:${row.inboxId}`,
    inboxId: row.inboxId,
    data: { waitId: row.id, inboxId: row.inboxId, reason, expiredAt: now.toISOString() },
  });
  return row;
}

/** A wait of the organization (and of an inbox the key may use), or 404. */
async function findWait(db: DbOrTx, principal: Principal, waitId: string): Promise<WaitRow> {
  const [row] = await db
    .select()
    .from(verificationWaits)
    .where(and(eq(verificationWaits.orgId, principal.orgId), eq(verificationWaits.id, waitId)));
  if (!row || !mayUseInbox(principal, row.inboxId)) throw notFound("wait", "waitId");
  return row;
}

/** A pending wait past its deadline is settled before it is shown (the sweeper may not have run yet). */
async function settleIfDue(db: DbOrTx, row: WaitRow): Promise<WaitRow> {
  const now = new Date();
  if (row.status !== "pending" || row.expiresAt > now) return row;
  return db.transaction(async (tx) => {
    const [locked] = await tx.select().from(verificationWaits).where(eq(verificationWaits.id, row.id)).for("update");
    return locked ? expireRow(tx, locked, now, "timeout") : row;
  });
}

export interface RegisterWaitInput {
  timeoutSec: number;
  fromHint?: string | null;
  instruction?: string | null;
  idempotencyKey?: string | null;
}

/** Thrown in a registration when look-back messages have no match computed yet (LLM matcher). */
class UnmatchedMessages extends Error {
  constructor(
    readonly list: MessageRow[],
    readonly wait: WaitRow,
  ) {
    super(`${list.length} look-back message(s) without a match`);
  }
}

export async function registerWait(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
  body: RegisterWaitInput,
): Promise<VerificationWait> {
  // With an LLM matcher the look-back's matches (by message id) are computed outside the
  // transaction: an attempt that meets a candidate message without one rolls back, the message is
  // matched, and the registration runs again (the last round matches newcomers deterministically).
  const matches: Map<string, MatchResult | null> | null = matcherCallsOut() ? new Map() : null;
  let round = 1;
  let replayed = false;
  const attempt = () =>
    db.transaction(async (tx) => {
      const inbox = await findInbox(tx, principal, inboxId);
      if (!mayUseInbox(principal, inbox.id)) throw notFound("inbox", "inboxId");
      await lockInbox(tx, inbox.id);
      if (body.idempotencyKey) {
        const [existing] = await tx
          .select()
          .from(verificationWaits)
          .where(
            and(eq(verificationWaits.inboxId, inbox.id), eq(verificationWaits.idempotencyKey, body.idempotencyKey)),
          );
        if (existing) {
          await recordAudit(tx, principal, {
            orgId: principal.orgId,
            action: "verification_wait.replayed",
            resourceType: "verification_wait",
            resourceId: existing.id,
          });
          return existing;
        }
      }
      if (inbox.status !== "active")
        throw new ApiError("conflict", `The inbox is ${inbox.status}: it receives nothing to wait for.`, "inboxId");
      const now = new Date();
      const [row] = await tx
        .insert(verificationWaits)
        .values({
          orgId: principal.orgId,
          inboxId: inbox.id,
          fromHint: body.fromHint?.trim().toLowerCase() || null,
          instruction: body.instruction ?? null,
          idempotencyKey: body.idempotencyKey ?? null,
          expiresAt: new Date(now.getTime() + body.timeoutSec * 1000),
          createdAt: now,
        })
        .returning();
      if (!row) throw new Error("wait insert returned nothing");
      await recordAudit(tx, principal, {
        orgId: principal.orgId,
        action: "verification_wait.created",
        resourceType: "verification_wait",
        resourceId: row.id,
        metadata: { inboxId: inbox.id, fromHint: row.fromHint, timeoutSec: body.timeoutSec },
      });
      // The look-back: the inbox's inbound messages of the last LOOKBACK_SECONDS, oldest first.
      const recent = await tx
        .select()
        .from(messages)
        .where(
          and(
            eq(messages.inboxId, inbox.id),
            eq(messages.direction, "inbound"),
            // A quarantined message resolves no wait until it is released; one whose extraction is
            // still pending settles this wait itself when its extraction ends (lib/messages/extraction.ts).
            sql`coalesce(${messages.extractionStatus}, '') not in ('quarantined', 'pending')`,
            gte(messages.receivedAt, new Date(now.getTime() - LOOKBACK_SECONDS * 1000)),
          ),
        )
        .orderBy(asc(messages.receivedAt), asc(messages.id))
        .limit(50);
      if (matches && round < MATCH_ROUNDS) {
        const missing = recent.filter((m) => candidate(row, m, now) && !matches.has(m.id));
        if (missing.length > 0) throw new UnmatchedMessages(missing, row);
      }
      for (const message of recent) {
        const matched = matches
          ? matches.has(message.id)
            ? (matches.get(message.id) ?? null)
            : matchDeterministic(matchInput(message), row.instruction)
          : undefined;
        const resolved = await tryResolve(tx, row, message, now, matched);
        if (resolved) return resolved;
      }
      return row;
    });
  for (;;) {
    try {
      return toWait(await attempt());
    } catch (err) {
      if (err instanceof UnmatchedMessages) {
        for (const m of err.list) matches?.set(m.id, await activeMatcher().match(matchInput(m), err.wait.instruction));
        round++;
        continue;
      }
      // Two registrations with one key that both missed the other's row (the unique index refused the
      // second): the second answers with the first's wait (found by its key on the next attempt).
      if (body.idempotencyKey && uniqueViolation(err) && !replayed) {
        replayed = true;
        continue;
      }
      throw err;
    }
  }
}

export async function getWait(db: DbOrTx, principal: Principal, waitId: string): Promise<VerificationWait> {
  return toWait(await settleIfDue(db, await findWait(db, principal, waitId)));
}

export async function listWaits(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
): Promise<{ waits: VerificationWait[] }> {
  const inbox = await findInbox(db, principal, inboxId);
  if (!mayUseInbox(principal, inbox.id)) throw notFound("inbox", "inboxId");
  const rows = await db
    .select()
    .from(verificationWaits)
    .where(eq(verificationWaits.inboxId, inbox.id))
    .orderBy(desc(verificationWaits.createdAt), desc(verificationWaits.id))
    .limit(100);
  const settled: WaitRow[] = [];
  for (const r of rows) settled.push(await settleIfDue(db, r));
  return { waits: settled.map(toWait) };
}

export async function cancelWait(db: DbOrTx, principal: Principal, waitId: string): Promise<VerificationWait> {
  await findWait(db, principal, waitId);
  const row = await db.transaction(async (tx) => {
    const [locked] = await tx.select().from(verificationWaits).where(eq(verificationWaits.id, waitId)).for("update");
    if (!locked) throw notFound("wait", "waitId");
    const now = new Date();
    const out =
      locked.status === "pending"
        ? await expireRow(tx, locked, now, locked.expiresAt <= now ? "timeout" : "cancelled")
        : locked;
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "verification_wait.cancelled",
      resourceType: "verification_wait",
      resourceId: out.id,
    });
    return out;
  });
  return toWait(row);
}

const POLL_MS = 500;

/**
 * Registers (or finds, by its idempotency key) a wait and polls it until it settles, `waitSeconds`
 * pass or the caller goes away. The wait itself outlives the call: it is a row.
 */
export async function waitForCode(
  db: DbOrTx,
  principal: Principal,
  inboxId: string,
  body: RegisterWaitInput & { waitSeconds: number },
  signal?: AbortSignal,
): Promise<VerificationWait> {
  const { waitSeconds, ...register } = body;
  let wait = await registerWait(db, principal, inboxId, register);
  const deadline = Date.now() + waitSeconds * 1000;
  while (wait.status === "pending" && Date.now() < deadline && !signal?.aborted) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
    wait = await getWait(db, principal, wait.waitId);
  }
  return wait;
}

/** The sweeper: expires pending waits past their deadline, each with `verification.expired`. */
export async function expireDueWaits(db: Db, now = new Date()): Promise<number> {
  const due = await db
    .select({ id: verificationWaits.id })
    .from(verificationWaits)
    .where(and(eq(verificationWaits.status, "pending"), lte(verificationWaits.expiresAt, now)))
    .limit(500);
  let expired = 0;
  for (const { id } of due) {
    const done = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(verificationWaits).where(eq(verificationWaits.id, id)).for("update");
      if (!row || row.status !== "pending" || row.expiresAt > now) return false;
      await expireRow(tx, row, now, "timeout");
      return true;
    });
    if (done) expired++;
  }
  if (expired > 0) log.info("verification waits expired by the sweeper", { expired });
  return expired;
}
