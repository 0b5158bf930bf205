import { errorFields, log } from "@/lib/log";

/** After how long (ms, from the enqueue) a nudged entry is tried; the relay's poll covers the rest. */
const DELAYS_MS = [10, 100, 500, 2_000];

/**
 * Performs an outbox entry that was written without a lease (so any relay may take it) soon after
 * its transaction commits, for a writer that does not see the commit (`storeMessage` runs inside its
 * callers' transactions): it tries to take the entry over a few times (`takeOverOutbox` claims it
 * only once it is committed and unleased) and stops at the first success. If the transaction rolled
 * back, or the process dies, nothing is lost: the relay's poll performs committed entries.
 */
export function nudgeOutbox(id: string): void {
  let attempt = 0;
  const tryOnce = async () => {
    const [{ getDb }, { takeOverOutbox }] = await Promise.all([import("@/db"), import("./relay")]);
    return takeOverOutbox(await getDb(), id);
  };
  const schedule = (prev: number) => {
    const delay = DELAYS_MS[attempt];
    if (delay === undefined) return;
    attempt++;
    setTimeout(() => {
      tryOnce()
        .then((taken) => {
          if (!taken) schedule(delay);
        })
        .catch((err: unknown) => log.warn("outbox nudge failed", { id, ...errorFields(err) }));
    }, delay - prev).unref();
  };
  schedule(0);
}
