/**
 * A line diff (longest common subsequence) for the console's version comparisons: the lines of
 * `before` and `after` as kept, removed and added, in order. Quadratic in the number of lines, so
 * larger inputs (more than `MAX_CELLS` line pairs) fall back to "all removed, all added" after the
 * common head and tail; template sources are at most 64 KiB.
 */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
  /** Line number in `before` (kept and removed lines). */
  oldNo: number | null;
  /** Line number in `after` (kept and added lines). */
  newNo: number | null;
}

const MAX_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  // The common head and tail need no table.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: "same", text: a[i] as string, oldNo: i + 1, newNo: i + 1 });
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_CELLS) {
    midA.forEach((text, i) => out.push({ kind: "removed", text, oldNo: head + i + 1, newNo: null }));
    midB.forEach((text, j) => out.push({ kind: "added", text, oldNo: null, newNo: head + j + 1 }));
  } else {
    // lcs[i][j]: the longest common subsequence of midA[i..] and midB[j..].
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      const row = lcs[i] as Uint32Array;
      const next = lcs[i + 1] as Uint32Array;
      for (let j = m - 1; j >= 0; j--)
        row[j] = midA[i] === midB[j] ? (next[j + 1] as number) + 1 : Math.max(next[j] as number, row[j + 1] as number);
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ kind: "same", text: midA[i] as string, oldNo: head + i + 1, newNo: head + j + 1 });
        i++;
        j++;
      } else if (
        i < n &&
        (j === m || ((lcs[i + 1] as Uint32Array)[j] as number) >= ((lcs[i] as Uint32Array)[j + 1] as number))
      ) {
        // Removed lines before added ones, as a reader expects a replacement.
        out.push({ kind: "removed", text: midA[i] as string, oldNo: head + i + 1, newNo: null });
        i++;
      } else {
        out.push({ kind: "added", text: midB[j] as string, oldNo: null, newNo: head + j + 1 });
        j++;
      }
    }
  }
  for (let k = tail; k > 0; k--)
    out.push({ kind: "same", text: a[a.length - k] as string, oldNo: a.length - k + 1, newNo: b.length - k + 1 });
  return out;
}
