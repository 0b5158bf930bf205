/**
 * Query errors without their values. drizzle wraps a failed query in an error whose message (and so
 * its stack) ends with every bound parameter (`Failed query: …\nparams: …`), and PGlite hangs the
 * parameters on its own error too: message bodies, key hashes, addresses would reach the logs of
 * whoever prints the error (our logger, Next.js, the workflow SDK's error serialization). Every query
 * error leaves the database layer scrubbed: the statement stays (it is our code), the values go.
 */

const VALUE_FIELDS = ["params", "parameters"] as const;

function hideValues(err: object): void {
  for (const field of VALUE_FIELDS) {
    if (Object.prototype.propertyIsEnumerable.call(err, field)) {
      Object.defineProperty(err, field, { value: undefined, enumerable: false, writable: true, configurable: true });
    }
  }
}

/** Scrubs a drizzle query error (and its driver cause) in place; anything else is returned as it is. */
export function scrubQueryError<E>(err: E): E {
  if (!(err instanceof Error)) return err;
  const query = (err as { query?: unknown }).query;
  if (typeof query === "string" && "params" in err) {
    const original = err.message;
    const message = `Failed query: ${query}`;
    if (original !== message) {
      err.message = message;
      if (err.stack?.includes(original)) err.stack = err.stack.replace(original, message);
    }
  }
  hideValues(err);
  if (err.cause && typeof err.cause === "object") hideValues(err.cause);
  return err;
}
