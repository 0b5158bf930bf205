/**
 * Template rendering benchmark: a typical react-email template (bench/templates/welcome.tsx) rendered
 * by the sandboxed renderer, cold and warm, p50/p99, beside the floor: the same component rendered
 * in the host process by @react-email/render (react-email's own path) and by React DOM's
 * renderToString. Every sandbox figure includes the worker round trip.
 *
 *   npm run bench:templates              # QuickJS (the default engine)
 *   NODE_OPTIONS=--no-node-snapshot npm run bench:templates   # also isolated-vm, when installed
 *
 * Rows:
 *   first render   the process's first render: esbuild builds the runtime, the worker starts,
 *                  WebAssembly compiles, the runtime loads, the template compiles and renders (once)
 *   cold context   a stored version of a new tenant each time: runtime load into a fresh context
 *                  (sealed: API removed, intrinsics frozen) + module + render
 *   cold module    a warm context, a new stored source each time: esbuild compile + module + render
 *   warm           a stored version, new props each time (the cached path of a send)
 *   warm + text    warm, plus the plain-text part (html-to-text in the worker)
 *   throwaway      the same source as a draft preview or a send's inline `react`: a fresh context
 *                  per render, disposed after it (what "a fresh context per render" costs every render)
 *   throughput     warm renders from 8 concurrent callers (8 organizations) over all workers
 */
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib";

const WARM = Number(process.env.BENCH_RENDERS ?? 1000);
const COLD = Number(process.env.BENCH_COLD ?? 20);
const source = fs.readFileSync(path.join(ROOT, "bench", "templates", "welcome.tsx"), "utf8");
const items = [
  { title: "Starter plan", qty: 1, price: "$9.00" },
  { title: "Extra seats", qty: 3, price: "$12.00" },
  { title: "Priority support", qty: 1, price: "$5.00" },
];
const props = (i: number) => ({ name: `Ada ${i}`, url: `https://example.com/start?u=${i}`, items });

function stats(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
  return { p50: at(50), p99: at(99) };
}

const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
function row(engine: string, what: string, samples: number[], note = ""): void {
  const { p50, p99 } = stats(samples);
  console.log(
    `${engine.padEnd(12)} ${what.padEnd(14)} n=${String(samples.length).padEnd(5)} p50 ${ms(p50).padStart(9)}  p99 ${ms(p99).padStart(9)}  ${note}`,
  );
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function floor(): Promise<void> {
  const React = await import("react");
  const { render } = await import("@react-email/render");
  const { renderToString } = await import("react-dom/server");
  const { default: Welcome } = await import("./templates/welcome");
  for (let i = 0; i < 50; i++) await render(React.createElement(Welcome, props(i)));
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < WARM; i++) {
    a.push(await time(() => render(React.createElement(Welcome, props(i)))));
    b.push(await time(() => Promise.resolve(renderToString(React.createElement(Welcome, props(i))))));
  }
  row("host", "react-email", a, "floor: @react-email/render in the host process, no sandbox");
  row("host", "renderToString", b, "floor: React DOM's synchronous renderer in the host process");
}

async function engine(name: "quickjs" | "isolated-vm"): Promise<void> {
  const { createRenderer, renderReact } = await import("@/lib/templates/render");
  const pool = createRenderer({ engine: name, workers: 2 });
  try {
    const first = await time(() =>
      renderReact({ tenant: "org:first", source, props: props(0), text: false, stored: true }, pool),
    );
    console.log(`${name.padEnd(12)} ${"first render".padEnd(14)} ${ms(first)}`);
    const cold: number[] = [];
    for (let i = 0; i < COLD; i++)
      cold.push(
        await time(() =>
          renderReact({ tenant: `org:cold-${i}`, source, props: props(i), text: false, stored: true }, pool),
        ),
      );
    row(name, "cold context", cold);
    const module: number[] = [];
    for (let i = 0; i < COLD * 2; i++) {
      const variant = `${source}\n// variant ${i}\n`;
      module.push(
        await time(() =>
          renderReact({ tenant: "org:first", source: variant, props: props(i), text: false, stored: true }, pool),
        ),
      );
    }
    row(name, "cold module", module);
    for (let i = 0; i < 50; i++)
      await renderReact({ tenant: "org:first", source, props: props(i), text: false, stored: true }, pool);
    const warm: number[] = [];
    for (let i = 0; i < WARM; i++)
      warm.push(
        await time(() =>
          renderReact({ tenant: "org:first", source, props: props(i), text: false, stored: true }, pool),
        ),
      );
    row(name, "warm", warm);
    const text: number[] = [];
    for (let i = 0; i < WARM / 2; i++)
      text.push(
        await time(() => renderReact({ tenant: "org:first", source, props: props(i), text: true, stored: true }, pool)),
      );
    row(name, "warm + text", text);
    const throwaway: number[] = [];
    for (let i = 0; i < COLD; i++)
      throwaway.push(
        await time(() => renderReact({ tenant: "org:first", source, props: props(i), text: false }, pool)),
      );
    row(name, "throwaway", throwaway);
    for (let t = 0; t < 8; t++)
      await renderReact({ tenant: `org:tp-${t}`, source, props: props(t), text: false, stored: true }, pool);
    const started = performance.now();
    let done = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, t) => {
        for (let i = 0; i < WARM / 4; i++) {
          await renderReact({ tenant: `org:tp-${t}`, source, props: props(i), text: false, stored: true }, pool);
          done++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${name.padEnd(12)} ${"throughput".padEnd(14)} ${(done / seconds).toFixed(0)} renders/s (8 callers, 2 workers)`,
    );
  } finally {
    await pool.close();
  }
}

console.log(`Node ${process.version}, ${WARM} warm renders, ${COLD} cold contexts`);
await floor();
await engine("quickjs");
const { nodeSnapshotDisabled } = await import("@/lib/templates/render");
let ivm = false;
try {
  createRequire(import.meta.url).resolve("isolated-vm");
  ivm = true;
} catch {
  console.log("isolated-vm   not installed (npm install --no-save isolated-vm@5.0.4 to compare)");
}
if (ivm && !nodeSnapshotDisabled())
  console.log("isolated-vm   installed, but Node runs without --no-node-snapshot: skipped");
else if (ivm) await engine("isolated-vm");
