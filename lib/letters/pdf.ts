import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { PDFDocument } from "pdf-lib";
import type * as PdfJs from "pdfjs-dist/legacy/build/pdf.mjs";
import { env, projectRoot } from "@/lib/env";
import type { Box } from "./geometry";
import { MAX_PAGES } from "./geometry";

/**
 * What verification reads from a PDF: page boxes from pdf-lib (the MediaBox/CropBox as drawn), text
 * runs with their boxes and the fonts they use from pdfjs-dist (the same text layer a viewer draws:
 * positions from the text matrix, a font's `missingFile` when the PDF does not embed it).
 *
 * Reading is bounded, so a hostile PDF (a content stream of millions of operators, a compression
 * bomb, a page tree of thousands of pages) cannot tie up the server: the parsers run in worker
 * threads (`LETTER_PDF_WORKERS`, a JavaScript heap of 512 MB each), a PDF taking longer than
 * `LETTER_PDF_TIMEOUT_MS` has its worker terminated (and replaced) and fails as `PdfTooSlow`, and
 * text is read from the first `MAX_PAGES + 1` pages only (a longer PDF fails `page_count` anyway).
 */

export interface MeasuredText {
  page: number;
  text: string;
  /** mm from the page's top-left corner. */
  box: Box;
  font: string;
}

export interface MeasuredFont {
  name: string;
  embedded: boolean;
  pages: number[];
}

export interface MeasuredPdf {
  pageCount: number;
  /** Per page, in mm (the crop box, which is what prints). */
  pages: { widthMm: number; heightMm: number }[];
  texts: MeasuredText[];
  fonts: MeasuredFont[];
}

export class UnreadablePdf extends Error {}

/** The PDF was not read within `LETTER_PDF_TIMEOUT_MS`. */
export class PdfTooSlow extends UnreadablePdf {}

/** Pages whose text is read (the rest are counted and sized only). */
export const TEXT_PAGES = MAX_PAGES + 1;

interface Parsers {
  PDFDocument: typeof PDFDocument;
  getDocument: typeof PdfJs.getDocument;
}

/**
 * The measuring itself. It runs in a worker thread, evaluated from its source text
 * (`Function.prototype.toString`): it may use only its parameters and the language, no imports and
 * no closures. Throws an Error whose message is the parser's reason for a PDF it cannot open.
 */
async function measureWith(parsers: Parsers, bytes: Uint8Array, textPages: number): Promise<MeasuredPdf> {
  const PT_TO_MM = 25.4 / 72;
  const round1 = (n: number) => Math.round(n * 10) / 10;
  const doc = await parsers.PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: false });
  const pages = doc.getPages().map((p) => {
    const box = p.getCropBox();
    return { widthMm: round1(box.width * PT_TO_MM), heightMm: round1(box.height * PT_TO_MM) };
  });

  const task = parsers.getDocument({
    data: new Uint8Array(bytes), // pdfjs transfers (detaches) the buffer it is given
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: 0,
  });
  const texts: MeasuredText[] = [];
  const fonts = new Map<string, MeasuredFont>();
  try {
    const pdf = await task.promise;
    const last = Math.min(pdf.numPages, textPages);
    for (let n = 1; n <= last; n++) {
      const page = await pdf.getPage(n);
      const [vx0, , , vy1] = page.view as [number, number, number, number];
      const content = await page.getTextContent();
      await page.getOperatorList(); // loads the page's fonts into commonObjs
      const loaded = new Map<string, { name: string; embedded: boolean }>();
      for (const id of Object.keys(content.styles)) {
        let name = content.styles[id]?.fontFamily ?? id;
        let embedded = true;
        try {
          const font = page.commonObjs.get(id) as { name?: string; missingFile?: boolean } | undefined;
          if (font?.name) name = font.name;
          embedded = font?.missingFile !== true;
        } catch {
          // a font pdfjs could not load is treated as embedded-unknown: the text check still sees its glyphs
        }
        loaded.set(id, { name, embedded });
        const key = `${name}:${embedded}`;
        const seen: MeasuredFont = fonts.get(key) ?? { name, embedded, pages: [] };
        if (!seen.pages.includes(n)) seen.pages.push(n);
        fonts.set(key, seen);
      }
      for (const item of content.items) {
        if (!("str" in item) || item.str.trim() === "") continue;
        const [a, b, , d, e, f] = item.transform as number[];
        const size = Math.hypot(a ?? 0, b ?? 0) || Math.abs(d ?? 0) || item.height;
        const height = item.height || size;
        // Glyph box: from the baseline up by the font size, down by a fifth of it (descenders).
        const left = (e ?? 0) - vx0;
        const top = vy1 - ((f ?? 0) + height);
        const bottom = vy1 - ((f ?? 0) - height * 0.2);
        texts.push({
          page: n,
          text: item.str,
          font: loaded.get(item.fontName)?.name ?? item.fontName,
          box: {
            x: left * PT_TO_MM,
            y: top * PT_TO_MM,
            width: item.width * PT_TO_MM,
            height: (bottom - top) * PT_TO_MM,
          },
        });
      }
      page.cleanup();
    }
    await pdf.destroy();
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw err;
  }
  return { pageCount: pages.length, pages, texts, fonts: [...fonts.values()] };
}

// ---- the worker threads -------------------------------------------------------------------------

interface Job {
  seq: number;
  bytes: Uint8Array;
  resolve: (m: MeasuredPdf) => void;
  reject: (err: Error) => void;
}

type Reply =
  | { seq: number; started: true }
  | { seq: number; ok: true; measured: MeasuredPdf }
  | { seq: number; ok: false; message: string };

/** How long a new worker may take to load its parsers before its first PDF (not the PDF's time). */
const STARTUP_MS = 60_000;

function resolveUrl(request: string): string {
  const require = createRequire(path.join(projectRoot, "package.json"));
  return pathToFileURL(require.resolve(request)).href;
}

// `__name`: tools that compile with esbuild's keepNames (tsx, vitest) call it inside functions.
const script = () => `"use strict";
var __name = (target) => target;
const { parentPort, workerData } = require("node:worker_threads");
const measureWith = (${measureWith.toString()});
const parsers = Promise.all([import(workerData.pdfLib), import(workerData.pdfjs)]).then(([lib, js]) => ({
  PDFDocument: lib.PDFDocument ?? lib.default.PDFDocument,
  getDocument: js.getDocument,
}));
parentPort.on("message", async ({ seq, bytes, textPages }) => {
  try {
    const loaded = await parsers;
    parentPort.postMessage({ seq, started: true });
    parentPort.postMessage({ seq, ok: true, measured: await measureWith(loaded, bytes, textPages) });
  } catch (err) {
    parentPort.postMessage({ seq, ok: false, message: err && err.message ? String(err.message) : String(err) });
  }
});`;

class Reader {
  private worker: Worker | null = null;
  running: Job | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly pool: PdfPool) {}

  private spawn(): Worker {
    const worker = new Worker(script(), {
      eval: true,
      workerData: { pdfLib: resolveUrl("pdf-lib"), pdfjs: resolveUrl("pdfjs-dist/legacy/build/pdf.mjs") },
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const job = this.running;
      if (!job || reply.seq !== job.seq) return;
      if ("started" in reply) this.arm(worker, job, env.LETTER_PDF_TIMEOUT_MS, "reading");
      else if (reply.ok) this.finish(() => job.resolve(reply.measured));
      else this.finish(() => job.reject(new UnreadablePdf(reply.message)));
    });
    const died = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const job = this.running;
      if (job) this.finish(() => job.reject(new UnreadablePdf(why)));
    };
    worker.on("error", (err) => died(`the PDF reader failed: ${err.message}`));
    worker.on("exit", (code) => died(`the PDF reader stopped (${code})`));
    return worker;
  }

  run(job: Job): void {
    this.running = job;
    const worker = (this.worker ??= this.spawn());
    // The PDF's own limit starts when the worker has its parsers loaded and begins reading it (a new
    // worker's module loading, seconds on a loaded machine, is not the PDF's time): until then the
    // startup limit applies.
    this.arm(worker, job, STARTUP_MS, "startup");
    worker.ref();
    worker.postMessage({ seq: job.seq, bytes: job.bytes, textPages: TEXT_PAGES });
  }

  /** (Re)starts the job's timer: past `ms` the worker is terminated (a new one is made for the next PDF). */
  private arm(worker: Worker, job: Job, ms: number, phase: "startup" | "reading"): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.worker === worker) this.worker = null;
      const why =
        phase === "startup"
          ? new Error(`the PDF reader did not start within ${ms} ms`) // the server's trouble, not the PDF's
          : new PdfTooSlow(`reading it took longer than ${ms} ms (the limit for one PDF); simplify the PDF`);
      this.finish(() => job.reject(why));
      void worker.terminate();
    }, ms);
  }

  private finish(settle: () => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = null;
    this.worker?.unref();
    settle();
    this.pool.next(this);
  }

  close(): Promise<unknown> {
    const worker = this.worker;
    this.worker = null;
    return worker ? worker.terminate() : Promise.resolve();
  }
}

class PdfPool {
  private readonly readers: Reader[];
  private readonly waiting: Job[] = [];
  private seq = 0;

  constructor(size: number) {
    this.readers = Array.from({ length: size }, () => new Reader(this));
  }

  measure(bytes: Uint8Array): Promise<MeasuredPdf> {
    return new Promise((resolve, reject) => {
      const job: Job = { seq: ++this.seq, bytes, resolve, reject };
      const idle = this.readers.find((r) => !r.running);
      if (idle) idle.run(job);
      else this.waiting.push(job);
    });
  }

  next(reader: Reader): void {
    const job = this.waiting.shift();
    if (job) reader.run(job);
  }

  close(): Promise<unknown> {
    return Promise.all(this.readers.map((r) => r.close()));
  }
}

const g = globalThis as { __svcPdfPool?: PdfPool };

/**
 * Reads a PDF's pages, text and fonts in a worker thread. Throws `UnreadablePdf` (with the
 * parser's reason) for bytes that are not a PDF it can open, `PdfTooSlow` past the time limit.
 */
export function measurePdf(bytes: Uint8Array): Promise<MeasuredPdf> {
  g.__svcPdfPool ??= new PdfPool(env.LETTER_PDF_WORKERS);
  return g.__svcPdfPool.measure(bytes);
}

/** Stops the PDF readers (tests and benchmarks that change the limits). */
export async function closePdfReaders(): Promise<void> {
  const pool = g.__svcPdfPool;
  g.__svcPdfPool = undefined;
  await pool?.close();
}
