import { describe, expect, test } from "vitest";
import { lineDiff } from "@/lib/console/line-diff";

/** The console's version diff: applying the diff's kept and added lines gives the new text back. */
const rebuild = (lines: ReturnType<typeof lineDiff>, side: "old" | "new") =>
  lines
    .filter((l) => l.kind === "same" || l.kind === (side === "old" ? "removed" : "added"))
    .map((l) => l.text)
    .join("\n");

describe("lineDiff", () => {
  test("marks a changed line as removed then added, keeps the rest, numbers both sides", () => {
    const d = lineDiff("a\nb\nc", "a\nB\nc");
    expect(d).toEqual([
      { kind: "same", text: "a", oldNo: 1, newNo: 1 },
      { kind: "removed", text: "b", oldNo: 2, newNo: null },
      { kind: "added", text: "B", oldNo: null, newNo: 2 },
      { kind: "same", text: "c", oldNo: 3, newNo: 3 },
    ]);
  });

  test("identical texts are all kept; insertions and deletions in the middle are minimal", () => {
    expect(lineDiff("x\ny", "x\ny").every((l) => l.kind === "same")).toBe(true);
    const d = lineDiff("1\n2\n3\n4\n5", "1\n3\n4\nnew\n5");
    expect(d.filter((l) => l.kind !== "same").map((l) => `${l.kind}:${l.text}`)).toEqual(["removed:2", "added:new"]);
  });

  test("both sides rebuild from the diff for random edits", () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 50; round++) {
      const a = Array.from({ length: rnd(20) }, () => String(rnd(5))).join("\n");
      const b = Array.from({ length: rnd(20) }, () => String(rnd(5))).join("\n");
      const d = lineDiff(a, b);
      expect(rebuild(d, "old")).toBe(a);
      expect(rebuild(d, "new")).toBe(b);
    }
  });
});
