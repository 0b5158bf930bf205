"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { VerificationCheck } from "@/lib/letters/contracts";
import { Badge, Table, Td, type Tone } from "../ui";

type Box = { x: number; y: number; width: number; height: number };

/** The geometry the checks measure against (from `GET /v1/letters/requirements`), in mm from the top-left corner. */
export interface PreviewGeometry {
  widthMm: number;
  heightMm: number;
  windows: { left: Box; right: Box };
  registered: { recipientBlock: { left: Box; right: Box }; carrierLabel: { left: Box; right: Box } };
  frankingZone: Box | null;
  edgeClearanceMm: number;
}

export interface PreviewResult {
  pdfBase64?: string;
  pageCount: number;
  pageSize: { widthMm: number; heightMm: number; format: string | null };
  valid: boolean;
  summary: string;
  agentHint: string;
  checks: VerificationCheck[];
  addressPlacement: "left" | "right";
  sizeBytes: number;
}

const CHECK_WORDS: Record<VerificationCheck["id"], string> = {
  page_size: "Page size",
  page_count: "Page count",
  fonts_embedded: "Fonts embedded",
  address_window: "Address in the window",
  address_match: "Address matches the recipient",
  franking_zone: "Franking zone free",
  edge_clearance: "Edge clearance",
  registered_domestic: "Registered is domestic",
  payment_slip: "Payment slip printed",
};
const STATUS_TONES: Record<VerificationCheck["status"], Tone> = {
  pass: "green",
  warn: "yellow",
  fail: "red",
  skipped: "gray",
};
const STATUS_WORDS: Record<VerificationCheck["status"], string> = {
  pass: "Pass",
  warn: "Warning",
  fail: "Fail",
  skipped: "Skipped",
};

const mm = (n: number) => `${Math.round(n * 10) / 10} mm`;
export const boxWords = (b: Box) =>
  `x ${mm(b.x)}–${mm(b.x + b.width)}, y ${mm(b.y)}–${mm(b.y + b.height)} (${mm(b.width)} × ${mm(b.height)})`;

function decode(base64: string): Uint8Array {
  const raw = atob(base64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/**
 * Page 1 of a PDF drawn by pdf.js into a canvas (in this tab: the worker module runs on the main
 * thread, a one-page letter is quick), with an SVG over it whose viewBox is the page in millimetres,
 * so the requirements' boxes land where the checks measured them.
 */
function PageCanvas({ pdfBase64, onError }: { pdfBase64: string; onError: (message: string) => void }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const pdfjs = await import("pdfjs-dist");
      await import("pdfjs-dist/build/pdf.worker.min.mjs");
      const doc = await pdfjs.getDocument({ data: decode(pdfBase64), isEvalSupported: false }).promise;
      try {
        const page = await doc.getPage(1);
        const c = canvas.current;
        if (cancelled || !c) return;
        const viewport = page.getViewport({ scale: 2 });
        c.width = Math.floor(viewport.width);
        c.height = Math.floor(viewport.height);
        await page.render({ canvas: c, viewport }).promise;
      } finally {
        await doc.destroy();
      }
    })().catch((err: unknown) => {
      if (!cancelled) onError(err instanceof Error ? err.message : String(err));
    });
    return () => {
      cancelled = true;
    };
  }, [pdfBase64, onError]);
  return <canvas ref={canvas} className="absolute inset-0 h-full w-full" aria-hidden />;
}

/** The rendered page with the address window, the keep-outs and each failing check's box (red) drawn over it, and the checks as a table. */
export function PdfPreview({
  result,
  geometry,
  delivery,
}: {
  result: PreviewResult;
  geometry: PreviewGeometry;
  delivery: "standard" | "registered";
}) {
  const [renderError, setRenderError] = useState<string | null>(null);
  const [pdfHref, setPdfHref] = useState<string | null>(null);
  const legendId = useId();
  useEffect(() => {
    if (!result.pdfBase64) return;
    const url = URL.createObjectURL(new Blob([decode(result.pdfBase64) as BlobPart], { type: "application/pdf" }));
    setPdfHref(url);
    return () => URL.revokeObjectURL(url);
  }, [result.pdfBase64]);
  const placement = result.addressPlacement;
  const windowBox = geometry.windows[placement];
  const failing = result.checks.filter((c) => c.status === "fail" && c.box && (c.page ?? 1) === 1);
  const warning = result.checks.filter((c) => c.status === "warn" && c.box && (c.page ?? 1) === 1);
  const e = geometry.edgeClearanceMm;
  const W = geometry.widthMm;
  const H = geometry.heightMm;
  const label = `Page 1 of ${result.pageCount}, with the address window (${placement})${geometry.frankingZone ? ", the franking zone" : ""} and the ${e} mm edge clearance drawn over it${failing.length > 0 ? `; ${failing.length} failing area${failing.length === 1 ? "" : "s"} in red` : ""}.`;
  return (
    <div className="space-y-4" data-testid="letter-preview">
      <p
        role="status"
        className={
          result.valid
            ? "rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-200"
            : "rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
        }
      >
        <span className="font-semibold">{result.valid ? "Ready to send. " : "Would be refused. "}</span>
        {result.summary} {result.agentHint}
      </p>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,26rem)_1fr]">
        <figure className="min-w-0 space-y-2">
          <div
            className="relative w-full max-w-[26rem] overflow-hidden border border-zinc-300 bg-white dark:border-zinc-700"
            style={{ aspectRatio: `${W} / ${H}` }}
            role="img"
            aria-label={label}
            aria-describedby={legendId}
          >
            {result.pdfBase64 ? <PageCanvas pdfBase64={result.pdfBase64} onError={setRenderError} /> : null}
            <svg
              viewBox={`0 0 ${W} ${H}`}
              className="absolute inset-0 h-full w-full"
              aria-hidden
              data-testid="check-overlay"
            >
              {/* Edge clearance: a frame e mm wide around the page. */}
              <path
                d={`M0 0H${W}V${H}H0Z M${e} ${e}V${H - e}H${W - e}V${e}Z`}
                fillRule="evenodd"
                fill="rgb(245 158 11 / 0.15)"
                data-box="edge_clearance"
              />
              {geometry.frankingZone ? (
                <rect
                  {...geometry.frankingZone}
                  fill="rgb(245 158 11 / 0.15)"
                  stroke="rgb(180 83 9)"
                  strokeWidth={0.5}
                  strokeDasharray="2 1"
                  data-box="franking_zone"
                />
              ) : null}
              <rect
                {...windowBox}
                fill="rgb(14 165 233 / 0.08)"
                stroke="rgb(3 105 161)"
                strokeWidth={0.6}
                data-box="address_window"
              />
              {delivery === "registered" ? (
                <rect
                  {...geometry.registered.carrierLabel[placement]}
                  fill="rgb(113 113 122 / 0.15)"
                  stroke="rgb(82 82 91)"
                  strokeWidth={0.4}
                  strokeDasharray="1 1"
                  data-box="carrier_label"
                />
              ) : null}
              {warning.map((c) => (
                <rect
                  key={`w-${c.id}`}
                  {...(c.box as Box)}
                  fill="rgb(245 158 11 / 0.25)"
                  stroke="rgb(180 83 9)"
                  strokeWidth={0.8}
                  data-box={`warn-${c.id}`}
                />
              ))}
              {failing.map((c) => (
                <rect
                  key={`f-${c.id}`}
                  {...(c.box as Box)}
                  fill="rgb(220 38 38 / 0.25)"
                  stroke="rgb(185 28 28)"
                  strokeWidth={1}
                  data-box={`fail-${c.id}`}
                />
              ))}
            </svg>
          </div>
          <figcaption id={legendId} className="space-y-1 text-xs text-zinc-700 dark:text-zinc-300">
            <span className="block">
              <span aria-hidden className="mr-1 inline-block size-3 border border-sky-700 bg-sky-100 align-middle" />
              Address window ({placement}): {boxWords(windowBox)}
            </span>
            {geometry.frankingZone ? (
              <span className="block">
                <span
                  aria-hidden
                  className="mr-1 inline-block size-3 border border-dashed border-amber-700 bg-amber-100 align-middle"
                />
                Franking zone, keep free: {boxWords(geometry.frankingZone)}
              </span>
            ) : null}
            <span className="block">
              <span aria-hidden className="mr-1 inline-block size-3 bg-amber-200 align-middle" />
              Edge clearance: no text within {e} mm of an edge
            </span>
            {failing.length > 0 ? (
              <span className="block">
                <span aria-hidden className="mr-1 inline-block size-3 border border-red-700 bg-red-200 align-middle" />
                Red: where a check failed
              </span>
            ) : null}
            <span className="block">
              Page 1 of {result.pageCount}
              {result.pageSize.format ? `, ${result.pageSize.format}` : ""} ({mm(result.pageSize.widthMm)} ×{" "}
              {mm(result.pageSize.heightMm)}), {Math.max(1, Math.round(result.sizeBytes / 1024))} KB.{" "}
              {pdfHref ? (
                <a className="link" href={pdfHref} target="_blank" rel="noreferrer">
                  Open the PDF
                </a>
              ) : null}
            </span>
          </figcaption>
          {renderError ? (
            <p role="alert" className="text-sm text-red-800 dark:text-red-300">
              The page could not be drawn in this browser ({renderError}); the checks below are still the API&apos;s.
            </p>
          ) : null}
        </figure>
        <div className="min-w-0">
          <Table head={["Check", "Result", "Expected", "Found", "Where"]} caption="Verification checks">
            {result.checks.map((c) => (
              <tr key={c.id} data-testid={`check-${c.id}`}>
                <Td>
                  <span className="font-medium">{CHECK_WORDS[c.id]}</span>
                  <span className="block text-xs text-zinc-700 dark:text-zinc-300">{c.message}</span>
                </Td>
                <Td>
                  <Badge tone={STATUS_TONES[c.status]}>{STATUS_WORDS[c.status]}</Badge>
                </Td>
                <Td className="break-words">{c.expected ?? "—"}</Td>
                <Td className="break-words">{c.actual ?? "—"}</Td>
                <Td className="break-words">
                  {c.box ? `Page ${c.page ?? 1}: ${boxWords(c.box)}` : c.page ? `Page ${c.page}` : "—"}
                </Td>
              </tr>
            ))}
          </Table>
        </div>
      </div>
    </div>
  );
}
