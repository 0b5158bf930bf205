/** The part of a failed action a form needs: per-field messages keyed like the API's `param` (`to[1]`). */
interface Failure {
  message: string;
  fields: Record<string, string>;
}

/** The first message for a field or anything under it (`to`, `to[1]`, `headers.X-Foo`), trying each name in turn. */
export function errorFor(failure: Failure | null, ...names: string[]): string | undefined {
  if (!failure) return undefined;
  for (const name of names) {
    for (const [key, message] of Object.entries(failure.fields)) {
      if (key === name || key.startsWith(`${name}.`) || key.startsWith(`${name}[`)) return message;
    }
  }
  return undefined;
}

/** The failure to show above the form: only when no field of the form shows it already. */
export function formLevel<F extends Failure>(failure: F | null, shownFields: string[]): F | null {
  if (!failure) return null;
  return shownFields.some((name) => errorFor(failure, name) !== undefined) ? null : failure;
}
