import { sql } from "drizzle-orm";
import { type DbOrTx, getDbHandle } from "@/db";

/**
 * In-process wake-up for the executor's workers: whoever queues work (an event arriving through
 * the Next.js route bundle, a finished child run) notifies, and idle workers in the same process
 * (started by server.ts from a separate module instance) wake at once instead of on their timer.
 */
const KEY = Symbol.for("svc.workflows.signal");
type Holder = { [KEY]?: EventTarget };

function target(): EventTarget {
  const holder = globalThis as Holder;
  holder[KEY] ??= new EventTarget();
  return holder[KEY];
}

export function notifyWork(): void {
  target().dispatchEvent(new Event("work"));
}

/** Resolves on the next notification or after `ms`, whichever is first. */
export function waitForWork(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = target();
    const done = () => {
      clearTimeout(timer);
      t.removeEventListener("work", done);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    t.addEventListener("work", done);
    signal?.addEventListener("abort", done);
  });
}

/**
 * Across processes: whoever queues work inside a transaction sends `NOTIFY svc_workflows`, which
 * the database delivers when (and only if) the transaction commits, to every listening process —
 * PostgreSQL to all of them, PGlite to its single owner. Each process listens once and wakes its
 * idle workers through `notifyWork`, so a worker never claims before the commit and never polls.
 */
export const WORK_CHANNEL = "svc_workflows";
const LISTENING = Symbol.for("svc.workflows.listening");
type ListenHolder = { [LISTENING]?: Promise<void> };

export async function notifyWorkOnCommit(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_notify(${WORK_CHANNEL}, '')`);
}

/** Starts this process's listener (idempotent). */
export function listenForWork(): Promise<void> {
  const holder = globalThis as ListenHolder;
  holder[LISTENING] ??= getDbHandle().then((h) => h.listen(WORK_CHANNEL, () => notifyWork()));
  holder[LISTENING].catch(() => delete holder[LISTENING]);
  return holder[LISTENING];
}

/** Wakes idle workers here and, on PostgreSQL, in every other process (work freed outside a transaction). */
export async function wakeWorkers(): Promise<void> {
  notifyWork();
  const handle = await getDbHandle();
  if (handle.kind === "postgres") await handle.db.execute(sql`select pg_notify(${WORK_CHANNEL}, '')`);
}
