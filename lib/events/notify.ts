import { EventEmitter } from "node:events";
import { getDbHandle } from "@/db";

/**
 * Wake-ups for long-polling readers of the ledger. `appendEvent` sends `NOTIFY svc_ledger` inside
 * the appending transaction, which PostgreSQL (and PGlite) deliver only when it commits, to every
 * listening process; each process LISTENs once and fans out in memory. No polling loop.
 */
export const LEDGER_CHANNEL = "svc_ledger";

const KEY = Symbol.for("svc.ledger.listener");
type Holder = { [KEY]?: { emitter: EventEmitter; ready: Promise<void> } };

function listener() {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    const ready = getDbHandle().then((h) => h.listen(LEDGER_CHANNEL, (orgId) => emitter.emit(orgId)));
    holder[KEY] = { emitter, ready };
    ready.catch(() => delete holder[KEY]);
  }
  return holder[KEY];
}

/** Starts listening (idempotent); call before the first read that may wait. */
export async function ensureLedgerListener(): Promise<void> {
  await listener().ready;
}

/** Resolves true on the next committed append in the organization, false after `ms`. */
export function waitForAppend(orgId: string, ms: number): Promise<boolean> {
  const { emitter } = listener();
  return new Promise((resolve) => {
    const done = (appended: boolean) => {
      clearTimeout(timer);
      emitter.off(orgId, onAppend);
      resolve(appended);
    };
    const onAppend = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    emitter.on(orgId, onAppend);
  });
}
