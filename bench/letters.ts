/**
 * Letters benchmark (in process, PGlite; no build needed), each figure beside its floor:
 *
 * - verify: `verifyPdf` of a 1-page and a 10-page Chromium letter (the service's path: a worker
 *   thread round trip, pdf-lib page boxes, pdfjs-dist text and fonts of every page, the checks),
 *   beside the parsers alone in this thread (pdf-lib load + pdfjs-dist getTextContent per page).
 * - render: `renderHtmlToPdf` of the same one-page letter HTML, cold (the process's first: the
 *   browser launches) and warm (a reused page of the pool),
 *   beside Chromium's own `page.pdf()` of that HTML in one reused page of a warm browser (and
 *   cold: launch + page + pdf). The service's warm renders reuse pages too (setContent + pdf), in a
 *   context with JavaScript off and the network refused.
 * - batch (BENCH_BATCH, default 1000; 0 skips): `POST /v1/letters/batch` of that many recipients
 *   through the real fan-out functions and the embedded executor, timed until `completed`, beside
 *   the fan-out floor: a synthetic fan-out of the same number of members through the same functions.
 *
 *   flock /tmp/bench.lock npm run bench:letters
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { VerifyInput } from "@/lib/letters/verify";

const N = Number(process.env.BENCH_VERIFY ?? 200);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 100);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
/** Sections to run (comma-separated): render, verify, batch. */
const ONLY = (process.env.BENCH_ONLY ?? "render,verify,batch").split(",");

if (!process.env.PGLITE_DIR && !process.env.DATABASE_URL) {
  process.env.PGLITE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-letters-"));
}
process.env.STORAGE_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-letters-st-"));
process.env.LOG_LEVEL ??= "warn";
process.env.INNGEST_SIGNING_KEY ??= "signkey-bench-00112233445566778899aabbccddeeff";

function stats(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
  return { p50: at(50), p99: at(99) };
}
const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
function row(what: string, samples: number[], note = ""): void {
  const { p50, p99 } = stats(samples);
  console.log(
    `${what.padEnd(34)} n=${String(samples.length).padEnd(4)} p50 ${ms(p50).padStart(9)}  p99 ${ms(p99).padStart(9)}  ${note}`,
  );
}
async function time<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const out = await f();
  return [performance.now() - t, out];
}

const letterHtml = (pages: number) => {
  const more = Array.from(
    { length: pages - 1 },
    (_, i) =>
      `<div style="page-break-before:always;padding:30mm 25mm">Page ${i + 2}. ${"Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(30)}</div>`,
  );
  return `<!doctype html><html><head><style>@page{size:A4;margin:0}body{margin:0;font:10pt "DejaVu Sans",sans-serif}</style></head><body>
<div style="position:absolute;left:25mm;top:63mm;line-height:1.25">Erika Mustermann<br>Hauptstraße 5<br>10115 Berlin</div>
<div style="position:absolute;left:25mm;top:105mm;width:160mm">Sehr geehrte Frau Mustermann, ${"this is the body of the letter. ".repeat(40)}</div>
<div style="height:290mm"></div>${more.join("")}</body></html>`;
};
const TO = {
  name: "Erika Mustermann",
  street: "Hauptstraße",
  houseNumber: "5",
  postalCode: "10115",
  city: "Berlin",
  country: "DE",
};

/** Renders the 1- and 10-page letters verify reads; with `measure`, times the renders beside the floor. */
async function renderSection(measure: boolean): Promise<Record<number, Uint8Array>> {
  const { renderHtmlToPdf, closeRenderer } = await import("@/lib/providers/print/render");
  const { chromium } = await import("playwright-core");
  const { env } = await import("@/lib/env");
  const html = letterHtml(1);
  const [cold] = await time(() => renderHtmlToPdf(html));
  if (!measure) {
    const pdfs = { 1: await renderHtmlToPdf(html), 10: await renderHtmlToPdf(letterHtml(10)) };
    await closeRenderer();
    return pdfs;
  }
  for (let i = 0; i < 5; i++) await renderHtmlToPdf(html);
  const warm: number[] = [];
  for (let i = 0; i < RENDERS; i++) warm.push((await time(() => renderHtmlToPdf(html)))[0]);
  const pdfs = { 1: await renderHtmlToPdf(html), 10: await renderHtmlToPdf(letterHtml(10)) };
  await closeRenderer();

  const pdfOpts = { format: "A4" as const, printBackground: true, preferCSSPageSize: true };
  const [floorCold] = await time(async () => {
    const b = await chromium.launch({ executablePath: env.LETTER_CHROMIUM_PATH });
    const p = await b.newPage();
    await p.setContent(html);
    await p.pdf(pdfOpts);
    await b.close();
  });
  const browser = await chromium.launch({ executablePath: env.LETTER_CHROMIUM_PATH });
  const page = await browser.newPage();
  for (let i = 0; i < 5; i++) {
    await page.setContent(html);
    await page.pdf(pdfOpts);
  }
  const floor: number[] = [];
  for (let i = 0; i < RENDERS; i++)
    floor.push(
      (
        await time(async () => {
          await page.setContent(html);
          await page.pdf(pdfOpts);
        })
      )[0],
    );
  await browser.close();
  console.log("\nrender HTML → PDF (one-page letter)");
  row("renderHtmlToPdf cold (first)", [cold], "browser launch + context + page + pdf");
  row("renderHtmlToPdf warm", warm, "a reused warm page (setContent + pdf), JS/network off");
  row("floor: launch + page.pdf() cold", [floorCold]);
  row("floor: page.pdf() warm, one page", floor, "setContent + pdf in a reused page");
  return pdfs;
}

async function verifySection(pdfs: Record<number, Uint8Array>): Promise<void> {
  const { verifyPdf } = await import("@/lib/letters/verify");
  const { closePdfReaders } = await import("@/lib/letters/pdf");
  const { PDFDocument } = await import("pdf-lib");
  const { getDocument } = await import("pdfjs-dist/legacy/build/pdf.mjs");
  console.log("\nverify");
  for (const pages of [1, 10] as const) {
    const bytes = pdfs[pages] as Uint8Array;
    const input: VerifyInput = {
      bytes,
      sourceParam: "pdfBase64",
      to: TO,
      print: { color: false, sides: "simplex", addressPlacement: "left" },
      delivery: "standard",
      maxPages: 10,
    };
    const first = await verifyPdf(input);
    if (first.measured.pageCount !== pages)
      throw new Error(`expected ${pages} pages, read ${first.measured.pageCount}`);
    for (let i = 0; i < 10; i++) await verifyPdf(input); // warm-up (JIT, both workers)
    const samples: number[] = [];
    for (let i = 0; i < N; i++) samples.push((await time(() => verifyPdf(input)))[0]);
    const parse = async () => {
      const doc = await PDFDocument.load(bytes, { updateMetadata: false });
      doc.getPages().map((p) => p.getCropBox());
      const pdf = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0 }).promise;
      for (let n = 1; n <= pdf.numPages; n++) await (await pdf.getPage(n)).getTextContent();
      await pdf.destroy();
    };
    // The same plus each page's operator list (what the service adds to load the fonts it checks).
    const parseOps = async () => {
      const pdf = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0 }).promise;
      for (let n = 1; n <= pdf.numPages; n++) {
        const page = await pdf.getPage(n);
        await page.getTextContent();
        await page.getOperatorList();
      }
      await pdf.destroy();
    };
    for (let i = 0; i < 10; i++) await parse();
    const floor: number[] = [];
    for (let i = 0; i < N; i++) floor.push((await time(parse))[0]);
    for (let i = 0; i < 5; i++) await parseOps();
    const floorOps: number[] = [];
    for (let i = 0; i < N; i++) floorOps.push((await time(parseOps))[0]);
    row(
      `verifyPdf ${pages} page(s), ${Math.round(bytes.length / 1024)} kB`,
      samples,
      "worker round trip + parse + checks",
    );
    row(`floor: parsers in this thread`, floor, "pdf-lib load + pdfjs getTextContent per page");
    row(`  pdfjs text + operator list`, floorOps, "pdfjs alone, with the fonts loaded (the service's parse)");
  }
  await closePdfReaders();
}

async function batchSection(): Promise<void> {
  if (BATCH <= 0) return;
  const { eq } = await import("drizzle-orm");
  const { getDb, closeDb } = await import("@/db");
  const { fanouts } = await import("@/db/schema");
  const { inngest } = await import("@/inngest/client");
  const { functions } = await import("@/inngest/functions");
  const { startFanout } = await import("@/lib/workflows/fanout");
  const { closeRenderer } = await import("@/lib/providers/print/render");
  const { startHarness } = await import("../tests/workflows/harness");
  // The in-process API harness of the tests (it locates app/ from its own directory, a CommonJS global).
  (globalThis as { __dirname?: string }).__dirname = path.join(import.meta.dirname, "..", "tests");
  const { call, newOrg } = await import("../tests/harness");
  const db = await getDb();
  const h = await startHarness({ workers: Number(process.env.WORKFLOW_WORKERS ?? 4), pollMs: 200 });
  await h.serveApp(inngest, functions);
  h.executor.start();

  // The floor: a synthetic fan-out of as many members through the same functions.
  const fStarted = performance.now();
  const run = await db.transaction((tx) =>
    startFanout(tx, { kind: "synthetic", params: { total: BATCH }, chunkSize: 25 }),
  );
  await run.afterCommit();
  for (;;) {
    const [f] = await db.select().from(fanouts).where(eq(fanouts.id, run.id));
    if (f?.status === "completed") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const floorS = (performance.now() - fStarted) / 1000;

  const o = await newOrg();
  type Body = Record<string, unknown>;
  const api = async (method: "GET" | "POST", url: string, body?: Body) =>
    (await call(method, url, { key: o.secret, body })) as { status: number; body: Body };
  const req = await api("GET", "/v1/letters/requirements");
  const starter = (req.body.starterTemplates as { name: string; html: string; variables: unknown }[])[0];
  if (!starter) throw new Error("no starter template");
  const template = await api("POST", "/v1/letters/templates", {
    name: starter.name,
    html: starter.html,
    variables: starter.variables,
  });
  const recipients = Array.from({ length: BATCH }, (_, i) => ({
    to: { ...TO, name: `Erika Mustermann ${i}`, houseNumber: String(i + 1) },
    templateData: { greeting: `Dear reader ${i},`, body: "Short body.", closing: "Regards" },
  }));
  const started = performance.now();
  const made = await api("POST", "/v1/letters/batch", {
    templateId: template.body.id,
    recipients,
    from: {
      company: "Beispiel GmbH",
      street: "Marktplatz",
      houseNumber: "1",
      postalCode: "80331",
      city: "München",
      country: "DE",
    },
  });
  if (made.status !== 202) throw new Error(`batch refused: ${JSON.stringify(made.body).slice(0, 400)}`);
  let done: Body | undefined;
  for (;;) {
    const got = await api("GET", `/v1/letters/batch/${String(made.body.id)}`);
    if (got.body.status === "completed") {
      done = got.body;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const s = (performance.now() - started) / 1000;
  console.log(
    `\nbatch of ${BATCH} letters (load at its end ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}; chunks of 25, ${process.env.LETTER_RENDER_CONCURRENCY ?? 2} renders at once)`,
  );
  console.log(
    `POST /v1/letters/batch → completed   ${s.toFixed(1)} s  (${(BATCH / s).toFixed(1)} letters/s; created ${String(done?.created)}, failed ${String(done?.failed)})`,
  );
  console.log(
    `floor: synthetic fan-out, same size  ${floorS.toFixed(1)} s  (${(BATCH / floorS).toFixed(0)} members/s)`,
  );
  await closeRenderer();
  await h.close();
  await closeDb();
}

const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
console.log(`letters benchmark (${os.cpus().length} cores, node ${process.version}, load ${load()})`);
const pdfs = await renderSection(ONLY.includes("render"));
if (ONLY.includes("verify")) await verifySection(pdfs);
if (ONLY.includes("batch")) await batchSection();
console.log(`load average at the end: ${load()}`);
process.exit(0);
