import { env } from "@/lib/env";
import { printProvider } from "@/lib/providers/print";
import {
  A4,
  ADDRESS_WINDOWS,
  EDGE_CLEARANCE_MM,
  FRANKING_ZONE,
  MAX_PAGES,
  MAX_PDF_BYTES,
  PAGE_TOLERANCE_MM,
  PRINT_CENTRE_COUNTRY,
  REGISTERED,
} from "./geometry";

/** Where the letter body may start: below the address field (DIN 5008 form B: 98.5 mm). */
const BODY_TOP_MM = 98.5;

/**
 * A starter template: the address block in the left window (the window's coordinates are the
 * geometry's, so this passes verification as it is), a small return line above it, the body below.
 * Posted verbatim to `POST /v1/letters/templates` it is a working template.
 */
export function starterHtml(): string {
  const w = ADDRESS_WINDOWS.left;
  return `<!doctype html>
<html><head><meta charset="utf-8"><style>
@page { size: A4; margin: 0; }
html, body { margin: 0; padding: 0; font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 10.5pt; }
.return { position: absolute; left: ${w.x + 5}mm; top: ${w.y + 5}mm; width: ${w.width - 10}mm; font-size: 7pt; }
.address { position: absolute; left: ${w.x + 5}mm; top: ${w.y + 18}mm; width: ${w.width - 10}mm; line-height: 1.25; }
.body { position: absolute; left: 25mm; right: 20mm; top: ${BODY_TOP_MM + 6}mm; line-height: 1.4; }
</style></head><body>
<div class="return">{{from.company}}{{from.name}} · {{from.street}} {{from.houseNumber}} · {{from.postalCode}} {{from.city}}</div>
<div class="address">{{to.name}}<br>{{to.street}} {{to.houseNumber}}<br>{{to.postalCode}} {{to.city}}</div>
<div class="body"><p>{{greeting}}</p><p>{{body}}</p><p>{{closing}}</p></div>
</body></html>`;
}

export function letterRequirements() {
  const provider = printProvider();
  const box = (b: { x: number; y: number; width: number; height: number }) => ({ ...b });
  return {
    object: "letter_requirements" as const,
    version: "2026-11-1",
    printMode: provider.mode,
    printModeNote:
      provider.mode === "test"
        ? "Test mode: letters are verified, priced and held like live ones, then moved through their statuses by the simulated print centre; nothing is printed or posted and the hold is released."
        : `Live mode: letters are printed and posted by ${provider.name}.`,
    testMode: { endState: env.LETTER_SIM_END_STATE, stepMs: env.LETTER_SIM_STEP_MS },
    destinations: {
      supportedCountries: "any" as const,
      printCentreCountry: PRINT_CENTRE_COUNTRY,
      registered: { domesticOnly: true, countries: [PRINT_CENTRE_COUNTRY] },
    },
    summary: `A4 portrait PDF, at most ${MAX_PAGES} pages, every font embedded; the recipient's address inside the DIN 5008 window (left: x ${ADDRESS_WINDOWS.left.x}–${ADDRESS_WINDOWS.left.x + ADDRESS_WINDOWS.left.width} mm, y ${ADDRESS_WINDOWS.left.y}–${ADDRESS_WINDOWS.left.y + ADDRESS_WINDOWS.left.height} mm); nothing in the franking zone (top right of page 1) and no text within ${EDGE_CLEARANCE_MM} mm of an edge.`,
    pageSetup: {
      widthMm: A4.widthMm,
      heightMm: A4.heightMm,
      format: A4.format,
      toleranceMm: PAGE_TOLERANCE_MM,
      maxPages: MAX_PAGES,
      maxPdfBytes: MAX_PDF_BYTES,
    },
    addressWindow: {
      left: box(ADDRESS_WINDOWS.left),
      right: box(ADDRESS_WINDOWS.right),
      registered: {
        recipientBlock: { left: REGISTERED.recipientBlock("left"), right: REGISTERED.recipientBlock("right") },
        carrierLabel: { left: REGISTERED.carrierLabel("left"), right: REGISTERED.carrierLabel("right") },
      },
      note: "Millimetres from the top-left corner of page 1. Every line of the address must lie entirely inside the window chosen by print.addressPlacement; registered letters keep y 50–67 mm free for the carrier's label and print the address at y 67–90 mm.",
    },
    keepOuts: [
      {
        id: "franking_zone",
        page: "1",
        box: box(FRANKING_ZONE),
        note: "Postage imprint and carrier codes: nothing printed here.",
      },
      { id: "edge_clearance", page: "all", marginMm: EDGE_CLEARANCE_MM, note: "No text closer than this to any edge." },
    ],
    bodyLayout: {
      bodyStartsAtMm: BODY_TOP_MM,
      marginLeftMm: 25,
      marginRightMm: 20,
      marginBottomMm: 20,
      note: "Suggested body area (DIN 5008 form B); only the keep-outs and the window are checked.",
    },
    pdfRules: [
      `PDF 1.4 or later, at most ${MAX_PDF_BYTES / 1024 / 1024} MB, not encrypted.`,
      `Every page A4 portrait (210 × 297 mm, ± ${PAGE_TOLERANCE_MM} mm).`,
      `At most ${MAX_PAGES} pages (a request's maxPages lowers it).`,
      "Every font embedded (subsets are fine); the base-14 fonts are not embedded unless the PDF carries them.",
      "The recipient's address as text (not an image) inside the address window, matching `to`.",
    ],
    workflow: [
      {
        step: "verify",
        method: "POST",
        path: "/v1/letters/verify",
        note: "Each check with expected, actual and the offending box in mm.",
      },
      {
        step: "price",
        method: "POST",
        path: "/v1/letters/price",
        note: "Integer cents: what the send holds under maxSpendPerDayCents.",
      },
      {
        step: "dryRun",
        method: "POST",
        path: "/v1/letters",
        note: "With dryRun: true: verification and price, nothing stored.",
      },
      {
        step: "send",
        method: "POST",
        path: "/v1/letters",
        note: "With an Idempotency-Key; follow letter.status_changed or GET /v1/letters/{letterId}.",
      },
    ],
    starterTemplates: [
      {
        name: "DIN 5008 letter (left window)",
        description: "Return line, recipient block in the left window, a body with greeting, text and closing.",
        variables: ["greeting", "body", "closing"],
        html: starterHtml(),
      },
    ],
    endpoints: {
      requirements: "GET /v1/letters/requirements",
      verify: "POST /v1/letters/verify",
      price: "POST /v1/letters/price",
      send: "POST /v1/letters",
      list: "GET /v1/letters",
      get: "GET /v1/letters/{letterId}",
      events: "GET /v1/letters/{letterId}/events",
      cancel: "POST /v1/letters/{letterId}/cancel",
      progress: "POST /v1/letters/{letterId}/progress",
    },
    agentHint:
      "Verify the PDF first and fix the first failing check (each names the box in mm), price it, send with dryRun: true, then send with an Idempotency-Key.",
    mcpTools: {
      requirements: "get_letter_requirements",
      verify: "verify_letter",
      price: "price_letter",
      send: "send_letter",
      get: "get_letter",
      cancel: "cancel_letter",
    },
  };
}
