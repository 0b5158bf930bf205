/**
 * The audience importer's CSV reader (runs in the browser): RFC 4180 fields (quotes, doubled
 * quotes, commas and line breaks inside quotes, CRLF or LF), then rows of `email,name`. A first row
 * whose first cell is `email` is the header; a header may put the columns in another order or add
 * columns (`name,email,company`); without a header the first column is the email and the second
 * the name. Rows without an `@` in the email are skipped and reported by line.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  while (i < s.length) {
    const ch = s[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      if (ch === "\r" && s[i + 1] === "\n") i++;
    } else field += ch;
    i++;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  // Blank lines are no rows.
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

export interface ImportRow {
  email: string;
  name?: string;
  /** The row's line in the file (1-based, the header counted), for messages. */
  line: number;
}

export function readMemberCsv(text: string): { rows: ImportRow[]; skipped: { line: number; reason: string }[] } {
  const table = parseCsv(text);
  let emailAt = 0;
  let nameAt: number | null = 1;
  let start = 0;
  const header = table[0]?.map((c) => c.trim().toLowerCase());
  if (header?.includes("email")) {
    emailAt = header.indexOf("email");
    nameAt = header.includes("name") ? header.indexOf("name") : null;
    start = 1;
  }
  const rows: ImportRow[] = [];
  const skipped: { line: number; reason: string }[] = [];
  for (let r = start; r < table.length; r++) {
    const cells = table[r] as string[];
    const email = (cells[emailAt] ?? "").trim();
    const name = nameAt === null ? "" : (cells[nameAt] ?? "").trim();
    const line = r + 1;
    if (!email.includes("@")) {
      skipped.push({ line, reason: email ? `“${email}” is not an email address` : "no email address" });
      continue;
    }
    rows.push({ email, ...(name ? { name: name.slice(0, 200) } : {}), line });
  }
  return { rows, skipped };
}

/** Splits rows into batches of at most `size` (the members operation takes 2,000 per request). */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
