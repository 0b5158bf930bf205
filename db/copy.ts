/**
 * COPY's text format (`DbHandle.copyRows`): one line per row, columns separated by tabs, `\N` for
 * null, and a backslash, tab, newline or carriage return inside a value escaped with a backslash.
 * Values: strings as they are, numbers and booleans as text, dates as ISO timestamps, anything
 * else (objects, arrays) as JSON. NUL, which no PostgreSQL text can hold, becomes U+FFFD.
 */
export function copyText(rows: readonly (readonly unknown[])[]): string {
  let out = "";
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out += "\t";
      out += copyValue(row[i]);
    }
    out += "\n";
  }
  return out;
}

const SPECIAL = /[\\\t\n\r\0]/;
const SPECIALS = /[\\\t\n\r\0]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\uFFFD" };

function copyValue(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  const text =
    typeof value === "string"
      ? value
      : value instanceof Date
        ? value.toISOString()
        : typeof value === "number" || typeof value === "boolean" || typeof value === "bigint"
          ? value.toString()
          : JSON.stringify(value);
  if (!SPECIAL.test(text)) return text;
  // JSON text holds backslashes but no raw control characters: the common case without a callback.
  return /[\t\n\r\0]/.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c] as string) : text.replaceAll("\\", "\\\\");
}

/** `copy <table> (<columns>) from <source>`; table and column names are the code's own, never input. */
export function copyStatement(table: string, columns: readonly string[], source: string): string {
  const ident = /^[a-z_][a-z0-9_]*$/;
  if (!ident.test(table) || !columns.every((c) => ident.test(c))) throw new Error(`copyRows: bad identifier`);
  return `copy ${table} (${columns.join(", ")}) from ${source}`;
}
