import { describe, expect, test } from "vitest";
import { batches, parseCsv, readMemberCsv } from "@/lib/console/csv";

/** The audience importer's CSV reading (the console parses in the browser and sends batches). */
describe("parseCsv", () => {
  test("quotes, doubled quotes, commas and line breaks inside quotes, CRLF, BOM, blank lines", () => {
    expect(parseCsv('\ufeffemail,name\r\n"a@x.io","Lovelace, Ada"\n\nb@x.io,"He said ""hi""\nthen left"\n')).toEqual([
      ["email", "name"],
      ["a@x.io", "Lovelace, Ada"],
      ["b@x.io", 'He said "hi"\nthen left'],
    ]);
    expect(parseCsv("a@x.io")).toEqual([["a@x.io"]]);
  });
});

describe("readMemberCsv", () => {
  test("a header names the columns in any order; rows without an address are skipped by line", () => {
    const { rows, skipped } = readMemberCsv("Name,Email,Company\nAda,ada@x.io,ACME\nBob,,X\nCy,cy-at-x,Y\n,dee@x.io,Z");
    expect(rows).toEqual([
      { email: "ada@x.io", name: "Ada", line: 2 },
      { email: "dee@x.io", line: 5 },
    ]);
    expect(skipped).toEqual([
      { line: 3, reason: "no email address" },
      { line: 4, reason: "“cy-at-x” is not an email address" },
    ]);
  });

  test("without a header the first column is the email and the second the name", () => {
    expect(readMemberCsv("ada@x.io,Ada\nbob@x.io").rows).toEqual([
      { email: "ada@x.io", name: "Ada", line: 1 },
      { email: "bob@x.io", line: 2 },
    ]);
  });

  test("batches of at most 2,000", () => {
    const sizes = batches(
      Array.from({ length: 4500 }, (_, i) => i),
      2000,
    ).map((b) => b.length);
    expect(sizes).toEqual([2000, 2000, 500]);
  });
});
