import type { Browser, BrowserContext, Page } from "playwright-core";
import { env } from "@/lib/env";
import { log } from "@/lib/log";

/**
 * HTML → PDF with headless Chromium (Debian's `chromium` at `LETTER_CHROMIUM_PATH`, driven by
 * playwright-core): one warm browser per process, launched on first use and relaunched if it dies;
 * one browser context with JavaScript off and the network offline, and in it a pool of at most
 * `LETTER_RENDER_CONCURRENCY` warm pages, each rendering one document at a time with `setContent`
 * (the rest wait in line, first come first served). Every request other than an inline `data:` URL
 * is refused, so a template cannot fetch or run anything. The page is A4 with no margins (the
 * template's CSS places everything); the document's fonts are embedded by Chromium's PDF backend.
 *
 * Why reused pages and not a fresh context per render: a context and its first page cost Chromium a
 * new renderer process, ~0.5 s of CPU per letter (measured 631 ms warm against 65 ms for
 * `setContent` + `page.pdf()` in a reused page), which bounded a 1,000-letter batch. Reuse keeps
 * letters apart because nothing of a document survives `setContent`: scripts never run, there is
 * no network (so no cookies or storage), and `setContent` replaces the whole document. A page whose
 * render failed is closed, not reused.
 */

interface Renderer {
  browser: Browser;
  context: BrowserContext;
}

let renderer: Promise<Renderer> | null = null;
/** Warm pages not rendering now. */
const idle: Page[] = [];
let open = 0;
const waiting: (() => void)[] = [];

async function warmRenderer(): Promise<Renderer> {
  renderer ??= (async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: env.LETTER_CHROMIUM_PATH, args: ["--disable-gpu"] });
    const mine = renderer;
    browser.on("disconnected", () => {
      if (renderer === mine) renderer = null;
      idle.length = 0; // their pages died with the browser
    });
    const context = await browser.newContext({ javaScriptEnabled: false, offline: true });
    await context.route("**/*", (route) =>
      route.request().url().startsWith("data:") ? route.continue() : route.abort("blockedbyclient"),
    );
    return { browser, context };
  })().catch((err: unknown) => {
    renderer = null;
    throw err;
  });
  return renderer;
}

/** A warm page of the current browser (the caller holds a slot). */
async function takePage(): Promise<Page> {
  for (;;) {
    const page = idle.pop();
    if (!page) break;
    if (!page.isClosed()) return page;
  }
  const { context } = await warmRenderer();
  return context.newPage();
}

async function slot<T>(work: () => Promise<T>): Promise<T> {
  while (open >= env.LETTER_RENDER_CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
  open++;
  try {
    return await work();
  } finally {
    open--;
    waiting.shift()?.();
  }
}

export class RenderUnavailable extends Error {}

/** Renders `html` to an A4 PDF. Throws `RenderUnavailable` when Chromium cannot be started or fails. */
export function renderHtmlToPdf(html: string): Promise<Uint8Array> {
  return slot(async () => {
    let page: Page;
    try {
      page = await takePage();
    } catch (err) {
      log.warn("letter renderer: chromium did not start", { err: err instanceof Error ? err.message : String(err) });
      throw new RenderUnavailable("The PDF renderer (Chromium) is not available.");
    }
    try {
      await page.setContent(html, { waitUntil: "load", timeout: 15_000 });
      const pdf = await page.pdf({
        format: "A4",
        printBackground: true,
        preferCSSPageSize: false,
        margin: { top: "0", right: "0", bottom: "0", left: "0" },
      });
      idle.push(page);
      return new Uint8Array(pdf);
    } catch (err) {
      await page.close().catch(() => undefined);
      throw new RenderUnavailable(
        `Chromium could not render the template: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`,
      );
    }
  });
}

/** Closes the warm browser and its pages (tests, shutdown). */
export async function closeRenderer(): Promise<void> {
  const r = renderer;
  renderer = null;
  idle.length = 0;
  if (r) await (await r).browser.close().catch(() => undefined);
}
