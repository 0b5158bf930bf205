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
