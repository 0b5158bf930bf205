import { sql } from "drizzle-orm";
import { type DbOrTx, getDbHandle } from "@/db";

/**
 * Wake-ups for background workers (the executor's, the webhook dispatcher's), per channel.
 *
 * In-process: whoever queues work (an event arriving through the Next.js route bundle, a finished
 * child run) notifies, and idle workers in the same process (started by server.ts from a separate
 * module instance) wake at once instead of on their timer.
 *
 * Across processes: whoever queues work inside a transaction sends `NOTIFY <channel>`, which the
 * database delivers when (and only if) the transaction commits, to every listening process —
 * PostgreSQL to all of them, PGlite to its single owner. Each process listens once per channel and
 * wakes its idle workers, so a worker never claims before the commit and never polls.
 */
export interface Wakeup {
  notify(): void;
  /**
   * How many notifications this process has seen: a worker that reads it before looking for work
   * and again before it sleeps knows whether a notification came in between (and looks again).
   */
  count(): number;
  /** Resolves on the next notification or after `ms`, whichever is first. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  notifyOnCommit(tx: DbOrTx): Promise<void>;
  /** Starts this process's listener (idempotent). */
  listen(): Promise<void>;
  /** Wakes idle workers here and, on PostgreSQL, in every other process (work freed outside a transaction). */
  wakeAll(): Promise<void>;
}

type Holder = Record<symbol, unknown>;

export function wakeup(channel: string): Wakeup {
  const KEY = Symbol.for(`svc.signal.${channel}`);
  const LISTENING = Symbol.for(`svc.signal.${channel}.listening`);
  const COUNT = Symbol.for(`svc.signal.${channel}.count`);
  const holder = globalThis as unknown as Holder;
  const target = (): EventTarget => {
    holder[KEY] ??= new EventTarget();
    return holder[KEY] as EventTarget;
  };
  const notify = () => {
    holder[COUNT] = ((holder[COUNT] as number | undefined) ?? 0) + 1;
    target().dispatchEvent(new Event("work"));
  };
  return {
    notify,
    count: () => (holder[COUNT] as number | undefined) ?? 0,
    wait(ms, signal) {
      return new Promise((resolve) => {
        // An already aborted signal never fires "abort" again.
        if (signal?.aborted) {
          resolve();
          return;
        }
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
    },
    async notifyOnCommit(tx) {
      await tx.execute(sql`select pg_notify(${channel}, '')`);
    },
    listen() {
      holder[LISTENING] ??= getDbHandle().then((h) => h.listen(channel, notify));
      const listening = holder[LISTENING] as Promise<void>;
      listening.catch(() => delete holder[LISTENING]);
      return listening;
    },
    async wakeAll() {
      notify();
      const handle = await getDbHandle();
      if (handle.kind === "postgres") await handle.db.execute(sql`select pg_notify(${channel}, '')`);
    },
  };
}

export const WORK_CHANNEL = "svc_workflows";
const work = wakeup(WORK_CHANNEL);

export const notifyWork = (): void => work.notify();
export const workNotifications = (): number => work.count();
export const waitForWork = (ms: number, signal?: AbortSignal): Promise<void> => work.wait(ms, signal);
export const notifyWorkOnCommit = (tx: DbOrTx): Promise<void> => work.notifyOnCommit(tx);
export const listenForWork = (): Promise<void> => work.listen();
export const wakeWorkers = (): Promise<void> => work.wakeAll();
