/**
 * Replaces `process.env` with a plain object holding the same variables, once at the start of a
 * long-lived process (the server, each cluster worker, the benchmarks that stand in for one).
 *
 * Node's `process.env` is an object over the OS environment: each read calls into C++, and each
 * enumeration copies every variable. The Inngest SDK enumerates it (`Object.entries(process.env)`
 * in its `getProcessEnv`, to pick out the `INNGEST_*` variables) about ten times per workflow run:
 * 12–17% of the executor's CPU in `bench:workflows` profiles (README, issue 27). The app reads its
 * settings once (`lib/env`), so a snapshot holds all it needs.
 *
 * What changes: a variable set afterwards is seen by JavaScript and by the child processes and
 * worker threads started afterwards (they are given `process.env`), but not by native code that
 * calls getenv(3) itself (a later change of `TZ`, say); nothing in this process does that.
 */
export function snapshotProcessEnv(): void {
  if (Object.hasOwn(process.env, SNAPSHOT)) return;
  const copy: NodeJS.ProcessEnv = { ...process.env };
  // Not enumerable: child processes and `{ ...process.env }` copies do not carry the marker.
  Object.defineProperty(copy, SNAPSHOT, { value: true, enumerable: false });
  process.env = copy;
}

const SNAPSHOT = Symbol.for("svc.processEnvSnapshot");
