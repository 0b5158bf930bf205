import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { deflateSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { letters, spendHolds } from "@/db/schema";
import { env } from "@/lib/env";
import { uuidv7 } from "@/db/ids";
import { storageOwners } from "@/lib/buckets/sweep";
import { letterPdfKey } from "@/lib/letters/letters";
import { advanceDueLetters } from "@/lib/letters/lifecycle";
import { ADDRESS_WINDOWS, intersect } from "@/lib/letters/geometry";
import { measurePdf } from "@/lib/letters/pdf";
import { letterPdfStorageOwner, previewPdfKey } from "@/lib/letters/pdf-storage";
import { storage } from "@/lib/providers/storage";
import { sweepOrphans } from "@/lib/providers/storage/sweep";
import { closeRenderer } from "@/lib/providers/print/render";
import { call, newKey, newOrg, type TestOrg } from "./harness";
import { TO, FROM } from "./fixtures/letters";

/**
 * Letters: verification measured from PDFs made here (Chromium for real embedded fonts, pdf-lib for
 * a base-14 font that is not embedded), each bad PDF failing its own check and only it; the send
 * path (422 naming the field, idempotency, the spend cap) and the simulated print centre's
 * lifecycle through `progress` and the durable clock (`next_step_at` moved in the database).
 */

function html(opts: { addressTop?: number; addressLeft?: number; extra?: string; pages?: number } = {}) {
  const pages = Array.from(
    { length: (opts.pages ?? 1) - 1 },
    (_, i) => `<div style="page-break-before:always;padding:30mm 25mm">Page ${i + 2}</div>`,
  );
  return `<!doctype html><html><head><style>@page{size:A4;margin:0}body{margin:0;font:10pt "DejaVu Sans",sans-serif}</style></head><body>
<div style="position:absolute;left:${opts.addressLeft ?? 25}mm;top:${opts.addressTop ?? 63}mm;line-height:1.25">Erika Mustermann<br>Hauptstraße 5<br>10115 Berlin</div>
<div style="position:absolute;left:25mm;top:105mm;width:160mm">Sehr geehrte Frau Mustermann, this is the body of the letter.</div>
${opts.extra ?? ""}<div style="height:290mm"></div>${pages.join("")}</body></html>`;
}

let browser: Browser;
let tab: Page;
const pdfs: Record<string, string> = {};
let org: TestOrg;

async function render(markup: string, format: "A4" | "Letter" = "A4"): Promise<string> {
  await tab.setContent(markup);
  const bytes = await tab.pdf({
    format,
    margin: { top: "0", left: "0", right: "0", bottom: "0" },
    preferCSSPageSize: format === "A4",
  });
  return Buffer.from(bytes).toString("base64");
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
  tab = await browser.newPage();
  pdfs.good = await render(html());
  pdfs.letter = await render(html().replace("size:A4;", ""), "Letter");
  pdfs.franking = await render(
    html({ extra: '<div style="position:absolute;left:150mm;top:20mm">TAX ID DE123</div>' }),
  );
  pdfs.outside = await render(html({ addressTop: 130 }));
  pdfs.fivePages = await render(html({ pages: 5 }));
  pdfs.registered = await render(html({ addressTop: 70 }));
  // The good letter plus a line in Helvetica, which pdf-lib writes as a base-14 font without its file.
  const doc = await PDFDocument.load(Buffer.from(pdfs.good, "base64"));
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  doc.getPage(0).drawText("P.S. not embedded", { x: 72, y: 300, size: 10, font: helvetica });
  pdfs.base14 = Buffer.from(await doc.save()).toString("base64");
  await browser.close();
  org = await newOrg();
}, 180_000); // Chromium's start and the database's first open (migrations) on a loaded machine

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await closeRenderer();
});

const verify = (body: Record<string, unknown>, key = org.secret) => call("POST", "/v1/letters/verify", { key, body });
const failed = (v: { checks: { id: string; status: string }[] }) =>
  v.checks.filter((c) => c.status === "fail").map((c) => c.id);

describe("verification", () => {
  test("a good A4 letter passes every check, with the address lines read from the window", async () => {
    const res = await verify({ pdfBase64: pdfs.good, to: TO });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      object: "letter_verification",
      valid: true,
      pageCount: 1,
      pageSize: { widthMm: 210, heightMm: 297, format: "A4" },
      addressPlacement: "left",
      addressLines: ["Erika Mustermann", "Hauptstraße 5", "10115 Berlin"],
    });
    expect(failed(res.body)).toEqual([]);
    expect(res.body.checks.find((c: { id: string }) => c.id === "address_match").status).toBe("pass");
  });

  test("each bad PDF fails its own check and only it, saying where and by how much", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["letter", { to: TO }, "page_size"],
      ["base14", { to: TO }, "fonts_embedded"],
      ["franking", { to: TO }, "franking_zone"],
      ["outside", {}, "address_window"],
      ["fivePages", { to: TO, maxPages: 4 }, "page_count"],
      ["registered", { to: { ...TO, country: "AT" }, delivery: "registered" }, "registered_domestic"],
    ];
    for (const [pdf, extra, check] of cases) {
      const res = await verify({ pdfBase64: pdfs[pdf], ...extra });
      expect(res.status, `${pdf}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.valid, pdf).toBe(false);
      expect(failed(res.body), pdf).toEqual([check]);
      expect(res.body.agentHint.length).toBeGreaterThan(10);
    }
    const letter = (await verify({ pdfBase64: pdfs.letter })).body;
    expect(letter.measuredPageSize).toMatchObject({ widthMm: 215.9, heightMm: 279.4, format: "Letter" });
    expect(letter.checks[0]).toMatchObject({ id: "page_size", actual: expect.stringContaining("215.9 × 279.4") });
    const franking = (await verify({ pdfBase64: pdfs.franking })).body.checks.find(
      (c: { id: string }) => c.id === "franking_zone",
    );
    expect(franking.box.x).toBeCloseTo(150, 0);
    expect(franking.box.y).toBeGreaterThan(17);
    expect(franking.box.y).toBeLessThan(23);
    const fonts = (await verify({ pdfBase64: pdfs.base14 })).body.checks.find(
      (c: { id: string }) => c.id === "fonts_embedded",
    );
    expect(fonts.actual).toContain("Helvetica");
  });

  test("a different printed street fails address_match; garbage is 422; requirements and price", async () => {
    const res = await verify({ pdfBase64: pdfs.good, to: { ...TO, street: "Nebenweg" } });
    expect(failed(res.body)).toEqual(["address_match"]);
    const garbage = await verify({ pdfBase64: Buffer.from("not a pdf at all").toString("base64") });
    expect(garbage.status).toBe(422);
    expect(garbage.body.error.param).toBe("pdfBase64");
    const req = await call("GET", "/v1/letters/requirements", { key: org.secret });
    expect(req.body).toMatchObject({ printMode: "test", pageSetup: { widthMm: 210, heightMm: 297 } });
    expect(req.body.addressWindow.left).toEqual({ x: 20, y: 45, width: 85, height: 45 });
    const price = await call("POST", "/v1/letters/price", {
      key: org.secret,
      body: { pageCount: 3, country: "US", delivery: "standard" },
    });
    expect(price.body).toMatchObject({ object: "letter_price", zone: "world", sheets: 3 });
    expect(Number.isInteger(price.body.priceCents)).toBe(true);
  });

  test("a PDF too slow to read (millions of drawing operators in one small stream) is 422 within the time limit", async () => {
    // 3 million path operators, deflated to a few hundred kB: pdfjs would spend seconds on them.
    const ops = Buffer.from("0 0 m 1 1 l S\n".repeat(1_000_000));
    const doc = await PDFDocument.create();
    const page = doc.addPage([595.28, 841.89]);
    const stream = doc.context.stream(deflateSync(ops), { Filter: "FlateDecode" });
    page.node.set(PDFName.of("Contents"), doc.context.register(stream));
    const hostile = Buffer.from(await doc.save()).toString("base64");
    const saved = env.LETTER_PDF_TIMEOUT_MS;
    env.LETTER_PDF_TIMEOUT_MS = 250;
    try {
      const started = Date.now();
      const res = await verify({ pdfBase64: hostile, to: TO });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error).toMatchObject({ code: "unprocessable", param: "pdfBase64" });
      expect(res.body.error.message).toContain("longer than 250 ms");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      env.LETTER_PDF_TIMEOUT_MS = saved;
    }
    // The reader was replaced: the next PDF reads as before.
    expect((await verify({ pdfBase64: pdfs.good, to: TO })).body.valid).toBe(true);
  });
});

// Poppler (Debian's poppler-utils, installed by .ci/run) as an independent reader of the same PDFs.
const run = promisify(execFile);
const onPath = (bin: string) =>
  (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
    try {
      return statSync(path.join(dir, bin)).isFile();
    } catch {
      return false;
    }
  });
const noPoppler = !onPath("pdftotext") || !onPath("pdffonts");
const PT = 25.4 / 72;

describe("cross-checked with poppler", () => {
  let dir: string;
  beforeAll(async () => {
    if (!noPoppler) dir = await mkdtemp(path.join(tmpdir(), "letters-poppler-"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const file = async (name: string) => {
    const f = path.join(dir, `${name}.pdf`);
    await writeFile(f, Buffer.from(pdfs[name] ?? "", "base64"));
    return f;
  };

  test.skipIf(noPoppler)("the address window's text positions agree with pdftotext -bbox within 1 mm", async () => {
    const f = await file("good");
    const { stdout } = await run("pdftotext", ["-bbox", "-f", "1", "-l", "1", f, "-"]);
    const words = [
      ...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
    ].map((m) => ({
      x0: Number(m[1]) * PT,
      y0: Number(m[2]) * PT,
      x1: Number(m[3]) * PT,
      y1: Number(m[4]) * PT,
      text: m[5],
    }));
    const measured = await measurePdf(Buffer.from(pdfs.good ?? "", "base64"));
    const window = ADDRESS_WINDOWS.left;
    const lines = measured.texts.filter((t) => t.page === 1 && intersect(window, t.box));
    expect(lines.map((t) => t.text)).toEqual(["Erika Mustermann", "Hauptstraße 5", "10115 Berlin"]);
    for (const line of lines) {
      // The line's words as poppler places them: the same tokens, on the same baseline band.
      const mine = words.filter(
        (w) => Math.abs(w.y0 - line.box.y) < 2 && w.x0 > line.box.x - 2 && w.x1 < line.box.x + line.box.width + 2,
      );
      expect(mine.map((w) => w.text).join(" ")).toBe(line.text);
      const first = mine[0];
      const last = mine.at(-1);
      if (!first || !last) throw new Error(`poppler has no words for ${line.text}`);
      expect(Math.abs(first.x0 - line.box.x), line.text).toBeLessThanOrEqual(1);
      expect(Math.abs(last.x1 - (line.box.x + line.box.width)), line.text).toBeLessThanOrEqual(1);
      expect(Math.abs(Math.min(...mine.map((w) => w.y0)) - line.box.y), line.text).toBeLessThanOrEqual(1);
      expect(
        Math.abs(Math.max(...mine.map((w) => w.y1)) - (line.box.y + line.box.height)),
        line.text,
      ).toBeLessThanOrEqual(1);
    }
  });

  test.skipIf(noPoppler)(
    "pdffonts agrees with fonts_embedded (embedded Chromium fonts; pdf-lib's Helvetica not)",
    async () => {
      for (const name of ["good", "base14"]) {
        const { stdout } = await run("pdffonts", [await file(name)]);
        // name, type (may be two words), encoding, emb, sub, uni, object ID: emb is the 5th column from the end.
        const fonts = stdout
          .split("\n")
          .slice(2)
          .filter((l) => l.trim())
          .map((l) => {
            const cols = l.trim().split(/\s+/);
            return { name: (cols[0] ?? "").replace(/^[A-Z]{6}\+/, ""), embedded: cols.at(-5) === "yes" };
          });
        expect(fonts.length, name).toBeGreaterThan(0);
        const check = (await verify({ pdfBase64: pdfs[name], to: TO })).body.checks.find(
          (c: { id: string }) => c.id === "fonts_embedded",
        );
        const missing = fonts.filter((f) => !f.embedded).map((f) => f.name);
        expect(check.status, `${name}: ${stdout}`).toBe(missing.length === 0 ? "pass" : "fail");
        for (const font of missing) expect(check.actual, name).toContain(font);
        const measured = await measurePdf(Buffer.from(pdfs[name] ?? "", "base64"));
        const notEmbedded = measured.fonts.filter((f) => !f.embedded).map((f) => f.name.replace(/^[A-Z]{6}\+/, ""));
        expect(notEmbedded.sort(), name).toEqual(missing.sort());
      }
    },
  );
});

const send = (body: Record<string, unknown>, o: TestOrg = org, headers?: Record<string, string>) =>
  call("POST", "/v1/letters", { key: o.secret, body: { to: TO, from: FROM, pdfBase64: pdfs.good, ...body }, headers });

describe("sending", () => {
  test("a failing check refuses with 422 naming the field; dryRun stores nothing", async () => {
    const bad = await send({ pdfBase64: pdfs.franking });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: "unprocessable", param: "pdfBase64" });
    expect((await send({ to: { ...TO, street: "Nebenweg" } })).body.error.param).toBe("to.street");
    const registered = await send({ to: { ...TO, country: "AT" }, delivery: "registered", pdfBase64: pdfs.registered });
    expect(registered.body.error.param).toBe("delivery");
    // the registered geometry: an address from y 63 mm is partly above the recipient block (67 mm)
    const high = await verify({ pdfBase64: pdfs.good, to: TO, delivery: "registered" });
    expect(failed(high.body)).toContain("address_window");
    expect(failed(high.body)).not.toContain("registered_domestic");
    const dry = await send({ dryRun: true });
    expect(dry.body).toMatchObject({ object: "letter_dry_run", valid: true, printMode: "test" });
    const list = await call("GET", "/v1/letters", { key: org.secret });
    expect(list.body.data).toEqual([]);
  });

  test("lifecycle: queued → … → delivered through progress, an event per status, the hold released", async () => {
    const made = await send({ description: "lifecycle" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ object: "letter", status: "queued", testMode: true, pageCount: 1 });
    const id = made.body.id as string;
    const seen = [];
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", `/v1/letters/${id}/progress`, { key: org.secret });
      expect(res.status).toBe(200);
      seen.push(res.body.status);
    }
    expect(seen).toEqual(["processing", "printable", "submitted", "in_transit", "delivered"]);
    expect((await call("POST", `/v1/letters/${id}/progress`, { key: org.secret })).status).toBe(409);
    const events = await call("GET", `/v1/letters/${id}/events?limit=4`, { key: org.secret });
    expect(events.body.data.map((e: { status: string }) => e.status)).toEqual([
      "queued",
      "processing",
      "printable",
      "submitted",
    ]);
    const rest = await call("GET", `/v1/letters/${id}/events?cursor=${events.body.pagination.nextCursor}`, {
      key: org.secret,
    });
    expect(rest.body.data.map((e: { status: string }) => e.status)).toEqual(["in_transit", "delivered"]);
    const got = await call("GET", `/v1/letters/${id}`, { key: org.secret });
    expect(got.body.timeline).toHaveLength(6);
    expect(got.body.nextStepAt).toBeNull();
    const db = await getDb();
    const [row] = await db.select().from(letters).where(eq(letters.id, id));
    const [hold] = await db
      .select()
      .from(spendHolds)
      .where(eq(spendHolds.id, row?.holdId ?? ""));
    expect(hold?.status).toBe("released");
    const list = await call("GET", "/v1/letters?limit=1", { key: org.secret });
    expect(list.body.data[0].id).toBe(id);
  });

  test("the clock: a due next_step_at moves the letter one step (sweeper), a future one does not", async () => {
    const id = (await send({})).body.id as string;
    const db = await getDb();
    // Other test files share the PostgreSQL database: judge this letter, not the count of moved letters.
    await advanceDueLetters(db);
    const before = await call("GET", `/v1/letters/${id}`, { key: org.secret });
    expect(before.body.status).toBe("queued");
    await db
      .update(letters)
      .set({ nextStepAt: new Date(Date.now() - 1000) })
      .where(eq(letters.id, id));
    expect(await advanceDueLetters(db)).toBeGreaterThanOrEqual(1);
    const got = await call("GET", `/v1/letters/${id}`, { key: org.secret });
    expect(got.body.status).toBe("processing");
    expect(new Date(got.body.nextStepAt).getTime()).toBeGreaterThan(Date.now());
  });

  test("cancel until processing ends, then 409 naming the status", async () => {
    const a = (await send({})).body.id as string;
    await call("POST", `/v1/letters/${a}/progress`, { key: org.secret });
    const canceled = await call("POST", `/v1/letters/${a}/cancel`, { key: org.secret });
    expect(canceled.body.status).toBe("canceled");
    expect((await call("POST", `/v1/letters/${a}/cancel`, { key: org.secret })).status).toBe(409);
    const b = (await send({})).body.id as string;
    await call("POST", `/v1/letters/${b}/progress`, { key: org.secret });
    await call("POST", `/v1/letters/${b}/progress`, { key: org.secret });
    const late = await call("POST", `/v1/letters/${b}/cancel`, { key: org.secret });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain("printable");
  });

  test("orphan PDFs are swept: a letter's PDF no row names and an expired preview go, the rest stay", async () => {
    const o = await newOrg();
    const db = await getDb();
    const sent = await send({}, o);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const pdf = Buffer.from(pdfs.good ?? "", "base64");
    const orphan = letterPdfKey(o.orgId, uuidv7()); // e.g. a send refused by the spend cap after the PDF was stored
    // A preview made 901 s ago (uuidv7 never goes back in time in one process: its time is set by hand).
    const old = (Date.now() - 901_000).toString(16).padStart(12, "0");
    const oldPreview = previewPdfKey(o.orgId, `${old.slice(0, 8)}-${old.slice(8)}${uuidv7().slice(13)}`);
    const freshPreview = previewPdfKey(o.orgId, uuidv7());
    for (const key of [orphan, oldPreview, freshPreview]) await storage().put(key, pdf);
    // The hourly storage sweep walks the letters' prefix; here only this organization's part of it.
    expect(storageOwners(db).map((owner) => owner.prefix)).toContain("letters/");
    const owner = { ...letterPdfStorageOwner(db), prefix: `letters/${o.orgId}/` };
    const swept = await sweepOrphans(storage(), [owner], { graceSeconds: 0, now: new Date(Date.now() + 1000) });
    expect(swept).toEqual({ scanned: 4, deleted: 2 });
    const left: string[] = [];
    for await (const obj of storage().list(`letters/${o.orgId}/`)) left.push(obj.key);
    expect(left.sort()).toEqual([letterPdfKey(o.orgId, sent.body.id), freshPreview].sort());
  });

  test("idempotent send; the spend cap; cross-organization 404; scopes", async () => {
    const o = await newOrg();
    const first = await send({}, o, { "Idempotency-Key": "letter-1" });
    const again = await send({}, o, { "Idempotency-Key": "letter-1" });
    expect(again.body.id).toBe(first.body.id);
    expect((await send({ description: "other" }, o, { "Idempotency-Key": "letter-1" })).status).toBe(400);
    const price = first.body.priceCents as number;
    const cap = await call("PUT", "/v1/budgets", {
      key: o.secret,
      body: { scope: "account", limits: { maxSpendPerDayCents: Math.floor(price * 2.5) } },
    });
    expect(cap.status).toBe(200);
    expect((await send({}, o)).status).toBe(201);
    const over = await send({}, o);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("spend_cap_reached");

    expect((await call("GET", `/v1/letters/${first.body.id}`, { key: org.secret })).status).toBe(404);
    expect((await call("POST", `/v1/letters/${first.body.id}/cancel`, { key: org.secret })).status).toBe(404);

    const reader = await newKey(o, { scopes: ["letters:read"] });
    expect((await verify({ pdfBase64: pdfs.good }, reader.secret)).status).toBe(200);
    const refused = await call("POST", "/v1/letters", { key: reader.secret, body: { to: TO, pdfBase64: pdfs.good } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("scope_missing");
    const whoami = await call("GET", "/v1/whoami", { key: o.secret });
    expect(whoami.body.letters).toEqual({ printMode: "test" });
  });
});

describe("templates", () => {
  test("the starter template posts verbatim, previews valid through Chromium and sends by templateId", async () => {
    const o = await newOrg();
    const req = await call("GET", "/v1/letters/requirements", { key: o.secret });
    const starter = req.body.starterTemplates[0];
    const made = await call("POST", "/v1/letters/templates", {
      key: o.secret,
      body: { name: starter.name, html: starter.html, variables: { greeting: "string", body: "text" } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.variables).toEqual([
      { name: "greeting", type: "string" },
      { name: "body", type: "text" },
    ]);
    const id = made.body.id as string;
    const templateData = { greeting: "Dear Ms Mustermann,", body: "<b>not bold</b>", closing: "Regards" };
    const preview = await call("POST", `/v1/letters/templates/${id}/preview`, {
      key: o.secret,
      body: { to: TO, from: FROM, templateData },
    });
    expect(preview.status, JSON.stringify(preview.body).slice(0, 500)).toBe(200);
    expect(preview.body).toMatchObject({
      object: "letter_template_preview",
      valid: true,
      pageCount: 1,
      failedChecks: [],
    });
    expect(Buffer.from(preview.body.pdfBase64, "base64").subarray(0, 5).toString()).toBe("%PDF-");
    const byUrl = await call("POST", `/v1/letters/templates/${id}/preview`, {
      key: o.secret,
      body: { to: TO, templateData, output: "url" },
    });
    expect(byUrl.body).toMatchObject({ pdfUrlExpiresInSeconds: 900, valid: true });
    expect(byUrl.body.pdfBase64).toBeUndefined();
    const verified = await verify({ templateId: id, to: TO, from: FROM, templateData }, o.secret);
    // the return line (DIN 5008's top of the window) and the recipient's three lines
    expect(verified.body.addressLines).toEqual([
      "Beispiel GmbH · Marktplatz 1 · 80331 München",
      "Erika Mustermann",
      "Hauptstraße 5",
      "10115 Berlin",
    ]);
    const sent = await call("POST", "/v1/letters", {
      key: o.secret,
      body: { templateId: id, to: TO, from: FROM, templateData },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const list = await call("GET", "/v1/letters/templates", { key: o.secret });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].html).toBeUndefined();
    const archived = await call("PATCH", `/v1/letters/templates/${id}`, {
      key: o.secret,
      body: { status: "archived" },
    });
    expect(archived.body.status).toBe("archived");
    const refused = await call("POST", "/v1/letters", { key: o.secret, body: { templateId: id, to: TO } });
    expect(refused.status).toBe(400);
    expect((await call("GET", `/v1/letters/templates/${id}`, { key: org.secret })).status).toBe(404);
    const both = await verify({ templateId: id, pdfBase64: pdfs.good, to: TO }, o.secret);
    expect(both.status).toBe(400);
  });
});
