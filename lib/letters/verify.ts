import { ApiError } from "@/lib/core/errors";
import type { LetterVerification, PostalAddress, PrintOptions, VerificationCheck } from "./contracts";
import {
  A4,
  ADDRESS_WINDOWS,
  type Box,
  contains,
  type Delivery,
  EDGE_CLEARANCE_MM,
  FRANKING_ZONE,
  intersect,
  MAX_PAGES,
  MAX_PDF_BYTES,
  PAGE_TOLERANCE_MM,
  PRINT_CENTRE_COUNTRY,
  REGISTERED,
  round1,
  roundBox,
  union,
} from "./geometry";
import { findPaymentSlip, type Payment } from "./payment";
import { type MeasuredPdf, type MeasuredText, measurePdf, PdfTooSlow, UnreadablePdf } from "./pdf";

/**
 * Letter verification: every check measured from the PDF (lib/letters/pdf.ts) against the one
 * geometry (lib/letters/geometry.ts). Each check says what was expected, what was found and, for
 * placement, where on the page in millimetres; `paramOf` names the request field at fault so a
 * send refuses with 422 and that `param`.
 */

export interface VerifyInput {
  bytes: Uint8Array;
  /** The request field that carried the document (what a document-level failure names). */
  sourceParam: string;
  to?: PostalAddress | null;
  print: PrintOptions;
  delivery: Delivery;
  maxPages?: number;
  /** A payment slip the template path rendered into the PDF (`payment_slip` looks for it). */
  payment?: Payment | null;
}

export interface VerifyResult {
  verification: LetterVerification;
  measured: MeasuredPdf;
  /** The request field at fault for the first failing check (422's `param`), or null when valid. */
  param: string | null;
}

/** Decodes base64 (already checked by the contract) and enforces the 4 MB limit. */
export function pdfBytesOf(pdfBase64: string, param = "pdfBase64"): Uint8Array {
  const bytes = Buffer.from(pdfBase64, "base64");
  if (bytes.length > MAX_PDF_BYTES)
    throw new ApiError(
      "payload_too_large",
      `The PDF is ${bytes.length} bytes; at most ${MAX_PDF_BYTES} are verified.`,
      param,
    );
  return new Uint8Array(bytes);
}

const mm = (n: number) => `${round1(n)} mm`;
const fmtBox = (b: Box) =>
  `x ${round1(b.x)}–${round1(b.x + b.width)} mm, y ${round1(b.y)}–${round1(b.y + b.height)} mm`;

const NAMED_SIZES: { format: string; widthMm: number; heightMm: number }[] = [
  { format: "A4", widthMm: 210, heightMm: 297 },
  { format: "Letter", widthMm: 215.9, heightMm: 279.4 },
  { format: "Legal", widthMm: 215.9, heightMm: 355.6 },
  { format: "A5", widthMm: 148, heightMm: 210 },
  { format: "A3", widthMm: 297, heightMm: 420 },
];
function formatOf(w: number, h: number): string | null {
  for (const s of NAMED_SIZES) {
    if (Math.abs(w - s.widthMm) <= PAGE_TOLERANCE_MM && Math.abs(h - s.heightMm) <= PAGE_TOLERANCE_MM) return s.format;
    if (Math.abs(h - s.widthMm) <= PAGE_TOLERANCE_MM && Math.abs(w - s.heightMm) <= PAGE_TOLERANCE_MM)
      return `${s.format} landscape`;
  }
  return null;
}
const isA4 = (p: { widthMm: number; heightMm: number }) =>
  Math.abs(p.widthMm - A4.widthMm) <= PAGE_TOLERANCE_MM && Math.abs(p.heightMm - A4.heightMm) <= PAGE_TOLERANCE_MM;

/** Lower-case, without accents or punctuation, `ß` as `ss`, `straße`/`strasse`/`str` as one word. */
export function normalizeAddressText(s: string): string {
  return s
    .toLowerCase()
    .replace(/ß/g, "ss")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .replace(/\b(\w*?)(strasse|str)\b/g, "$1str")
    .replace(/\s+/g, " ")
    .trim();
}

/** Groups text runs into lines (runs whose tops are within 1.5 mm), left to right. */
function linesOf(texts: MeasuredText[]): string[] {
  const sorted = [...texts].sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
  const lines: MeasuredText[][] = [];
  for (const t of sorted) {
    const last = lines[lines.length - 1];
    if (last?.[0] && Math.abs(last[0].box.y - t.box.y) <= 1.5) last.push(t);
    else lines.push([t]);
  }
  return lines.map((l) =>
    l
      .sort((a, b) => a.box.x - b.box.x)
      .map((t) => t.text.trim())
      .join(" ")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

const HINTS: Record<VerificationCheck["id"], (c: VerificationCheck) => string> = {
  page_size: (c) => `Make every page A4 (210 × 297 mm, portrait); ${c.actual ?? "a page is not"}.`,
  page_count: (c) => `Shorten the letter: ${c.actual ?? "it has too many pages"}, ${c.expected ?? ""}.`,
  fonts_embedded: (c) =>
    `Embed every font in the PDF (${c.actual ?? "a font is not embedded"}); print to PDF with fonts embedded or subset.`,
  address_window: (c) =>
    `Put the recipient's address inside the address window (${c.expected ?? "see requirements"}): ${c.actual ?? ""}.`,
  address_match: (c) => `Print the same address as \`to\` in the window: ${c.actual ?? "a field is missing"}.`,
  franking_zone: (c) =>
    `Move what is printed in the franking zone (${c.expected ?? "top right of page 1"}) elsewhere: ${c.actual ?? ""}.`,
  edge_clearance: (c) => `Keep all text at least ${EDGE_CLEARANCE_MM} mm from the page edges: ${c.actual ?? ""}.`,
  registered_domestic: () =>
    `Registered delivery is domestic only (${PRINT_CENTRE_COUNTRY}): send it as standard delivery or to a ${PRINT_CENTRE_COUNTRY} address.`,
  payment_slip: (c) =>
    `The payment slip's page lost its text (${c.actual ?? ""}): render the letter again from its template with \`payment\`.`,
};

/** Measures and checks a letter's PDF. An unreadable PDF, or one too slow to read, is 422 naming the source field. */
export async function verifyPdf(input: VerifyInput): Promise<VerifyResult> {
  let measured: MeasuredPdf;
  try {
    measured = await measurePdf(input.bytes);
  } catch (err) {
    if (err instanceof PdfTooSlow)
      throw new ApiError(
        "unprocessable",
        `The PDF could not be read in time: ${err.message} (fewer drawing operations, no huge compressed streams).`,
        input.sourceParam,
      );
    if (err instanceof UnreadablePdf)
      throw new ApiError(
        "unprocessable",
        `The document is not a PDF this service can read (${err.message.slice(0, 200)}).`,
        input.sourceParam,
      );
    throw err;
  }
  const checks: (VerificationCheck & { param?: string })[] = [];
  const placement = input.print.addressPlacement;
  const first = measured.pages[0] ?? { widthMm: 0, heightMm: 0 };

  // page_size
  const badPage = measured.pages.findIndex((p) => !isA4(p));
  if (measured.pageCount === 0)
    checks.push({
      id: "page_size",
      status: "fail",
      message: "The PDF has no pages.",
      expected: "210 × 297 mm (A4)",
      actual: "no pages",
      param: input.sourceParam,
    });
  else if (badPage === -1)
    checks.push({
      id: "page_size",
      status: "pass",
      message: "Every page is A4.",
      expected: "210 × 297 mm (A4)",
      actual: `${first.widthMm} × ${first.heightMm} mm`,
    });
  else {
    const p = measured.pages[badPage] ?? first;
    const format = formatOf(p.widthMm, p.heightMm);
    checks.push({
      id: "page_size",
      status: "fail",
      message: `Page ${badPage + 1} is ${p.widthMm} × ${p.heightMm} mm${format ? ` (${format})` : ""}, not A4: off by ${mm(Math.abs(p.widthMm - A4.widthMm))} in width and ${mm(Math.abs(p.heightMm - A4.heightMm))} in height.`,
      expected: `210 × 297 mm (A4) ± ${PAGE_TOLERANCE_MM} mm`,
      actual: `page ${badPage + 1} is ${p.widthMm} × ${p.heightMm} mm${format ? ` (${format})` : ""}`,
      page: badPage + 1,
      param: input.sourceParam,
    });
  }

  // page_count
  const limit = Math.min(MAX_PAGES, input.maxPages ?? MAX_PAGES);
  const limitSource = input.maxPages !== undefined && input.maxPages < MAX_PAGES ? "maxPages" : "the service's limit";
  checks.push(
    measured.pageCount <= limit
      ? {
          id: "page_count",
          status: "pass",
          message: `${measured.pageCount} page(s), within ${limit}.`,
          expected: `at most ${limit} pages`,
          actual: `${measured.pageCount} pages`,
        }
      : {
          id: "page_count",
          status: "fail",
          message: `The PDF has ${measured.pageCount} pages; ${limitSource} allows ${limit} (${measured.pageCount - limit} too many).`,
          expected: `at most ${limit} pages (${limitSource})`,
          actual: `${measured.pageCount} pages`,
          page: limit + 1,
          param: input.sourceParam,
        },
  );

  // fonts_embedded
  const missing = measured.fonts.filter((f) => !f.embedded);
  checks.push(
    missing.length === 0
      ? {
          id: "fonts_embedded",
          status: "pass",
          message: `${measured.fonts.length} font(s), all embedded.`,
          expected: "every font embedded",
          actual: "all embedded",
        }
      : {
          id: "fonts_embedded",
          status: "fail",
          message: `${missing.length} font(s) not embedded: ${missing.map((f) => `${f.name} (page ${f.pages.join(", ")})`).join("; ")}.`,
          expected: "every font embedded",
          actual: missing.map((f) => `${f.name} not embedded (page ${f.pages.join(", ")})`).join("; "),
          page: missing[0]?.pages[0],
          param: input.sourceParam,
        },
  );

  // address_window (page 1)
  const page1 = measured.texts.filter((t) => t.page === 1);
  const registered = input.delivery === "registered";
  const window = registered ? REGISTERED.recipientBlock(placement) : ADDRESS_WINDOWS[placement];
  const windowName = registered
    ? `registered recipient block (${fmtBox(window)})`
    : `${placement} window (${fmtBox(window)})`;
  const touching = page1.filter((t) => intersect(t.box, window));
  const inside = touching.filter((t) => contains(window, t.box));
  const crossing = touching.filter((t) => !contains(window, t.box));
  const label = registered ? page1.filter((t) => intersect(t.box, REGISTERED.carrierLabel(placement))) : [];
  const addressLines = linesOf(touching);
  if (inside.length === 0) {
    const nearest = page1
      .map((t) => ({ t, d: Math.hypot(t.box.x - window.x, t.box.y - window.y) }))
      .sort((a, b) => a.d - b.d)[0]?.t;
    checks.push({
      id: "address_window",
      status: "fail",
      message: `No text inside the ${windowName}${nearest ? `; the nearest text ("${nearest.text.slice(0, 40)}") is at ${fmtBox(nearest.box)}` : ""}.`,
      expected: `the address inside ${fmtBox(window)}`,
      actual: nearest ? `nothing inside; nearest text at ${fmtBox(nearest.box)}` : "no text on page 1",
      page: 1,
      box: roundBox(nearest?.box ?? window),
      param: "to",
    });
  } else if (crossing.length > 0) {
    const over = union(crossing.map((t) => t.box));
    const by = Math.max(
      window.x - over.x,
      window.y - over.y,
      over.x + over.width - (window.x + window.width),
      over.y + over.height - (window.y + window.height),
      0,
    );
    checks.push({
      id: "address_window",
      status: "fail",
      message: `Text crosses the edge of the ${windowName} by ${mm(by)} ("${crossing[0]?.text.slice(0, 40)}"); it would be cut off or hidden by the envelope.`,
      expected: `the address entirely inside ${fmtBox(window)}`,
      actual: `text at ${fmtBox(over)}, ${mm(by)} outside`,
      page: 1,
      box: roundBox(over),
      param: "to",
    });
  } else if (label.length > 0) {
    const over = union(label.map((t) => t.box));
    checks.push({
      id: "address_window",
      status: "fail",
      message: `Text in the carrier label area of a registered letter (${fmtBox(REGISTERED.carrierLabel(placement))}); the label covers it.`,
      expected: `nothing at ${fmtBox(REGISTERED.carrierLabel(placement))}`,
      actual: `text at ${fmtBox(over)}`,
      page: 1,
      box: roundBox(over),
      param: "delivery",
    });
  } else
    checks.push({
      id: "address_window",
      status: "pass",
      message: `${addressLines.length} line(s) inside the ${windowName}.`,
      expected: `the address inside ${fmtBox(window)}`,
      actual: addressLines.join(" / "),
    });

  // address_match
  if (!input.to)
    checks.push({
      id: "address_match",
      status: "skipped",
      message: "No `to` given: the printed address was not compared.",
    });
  else if (touching.length === 0)
    checks.push({
      id: "address_match",
      status: "skipped",
      message: "The address window is empty: nothing to compare with `to`.",
    });
  else {
    const printed = ` ${normalizeAddressText(addressLines.join(" "))} `;
    const to = input.to;
    const fields: [keyof PostalAddress, string | null | undefined][] = [
      ["name", to.name],
      ["company", to.company],
      ["street", to.street ? `${to.street} ${to.houseNumber ?? ""}` : null],
      ["poBox", to.street ? null : to.poBox],
      ["postalCode", to.postalCode],
      ["city", to.city],
    ];
    const absent = fields.filter(([, v]) => v && !printed.includes(` ${normalizeAddressText(v)} `));
    checks.push(
      absent.length === 0
        ? {
            id: "address_match",
            status: "pass",
            message: "The printed address matches `to`.",
            expected: "the fields of `to`",
            actual: addressLines.join(" / "),
          }
        : {
            id: "address_match",
            status: "fail",
            message: `The printed address does not show ${absent.map(([k, v]) => `to.${k} ("${v}")`).join(", ")}.`,
            expected: absent.map(([k, v]) => `${k}: ${v}`).join("; "),
            actual: `printed: ${addressLines.join(" / ")}`,
            page: 1,
            box: roundBox(union(touching.map((t) => t.box))),
            param: `to.${absent[0]?.[0]}`,
          },
    );
  }

  // franking_zone (page 1)
  const franked = page1.filter((t) => intersect(t.box, FRANKING_ZONE));
  if (franked.length === 0)
    checks.push({
      id: "franking_zone",
      status: "pass",
      message: "The franking zone is free.",
      expected: `nothing at ${fmtBox(FRANKING_ZONE)}`,
      actual: "free",
    });
  else {
    const over = union(franked.map((t) => t.box));
    const into = intersect(over, FRANKING_ZONE) ?? over;
    checks.push({
      id: "franking_zone",
      status: "fail",
      message: `Text in the franking zone on page 1 ("${franked[0]?.text.slice(0, 40)}"): ${round1(into.width)} × ${round1(into.height)} mm of it, reaching ${mm(FRANKING_ZONE.y + FRANKING_ZONE.height - into.y)} into the zone from its lower edge.`,
      expected: `nothing at ${fmtBox(FRANKING_ZONE)}`,
      actual: `text at ${fmtBox(over)}`,
      page: 1,
      box: roundBox(over),
      param: input.sourceParam,
    });
  }

  // edge_clearance (every page)
  let worst: { t: MeasuredText; by: number } | null = null;
  for (const t of measured.texts) {
    const p = measured.pages[t.page - 1];
    if (!p) continue;
    const margin = Math.min(
      t.box.x,
      t.box.y,
      p.widthMm - (t.box.x + t.box.width),
      p.heightMm - (t.box.y + t.box.height),
    );
    const by = EDGE_CLEARANCE_MM - margin;
    if (by > 0.05 && (!worst || by > worst.by)) worst = { t, by };
  }
  checks.push(
    worst
      ? {
          id: "edge_clearance",
          status: "fail",
          message: `Text on page ${worst.t.page} ("${worst.t.text.slice(0, 40)}") is ${mm(EDGE_CLEARANCE_MM - worst.by)} from the edge, ${mm(worst.by)} inside the ${EDGE_CLEARANCE_MM} mm clearance.`,
          expected: `text at least ${EDGE_CLEARANCE_MM} mm from every edge`,
          actual: `${mm(Math.max(0, EDGE_CLEARANCE_MM - worst.by))} on page ${worst.t.page}`,
          page: worst.t.page,
          box: roundBox(worst.t.box),
          param: input.sourceParam,
        }
      : {
          id: "edge_clearance",
          status: "pass",
          message: `All text at least ${EDGE_CLEARANCE_MM} mm from the edges.`,
          expected: `${EDGE_CLEARANCE_MM} mm`,
          actual: "clear",
        },
  );

  // registered_domestic
  if (!registered) checks.push({ id: "registered_domestic", status: "skipped", message: "Standard delivery." });
  else if (!input.to)
    checks.push({
      id: "registered_domestic",
      status: "skipped",
      message: "No `to` given: the destination was not checked.",
    });
  else
    checks.push(
      input.to.country === PRINT_CENTRE_COUNTRY
        ? {
            id: "registered_domestic",
            status: "pass",
            message: "Registered delivery within the print centre's country.",
            expected: PRINT_CENTRE_COUNTRY,
            actual: input.to.country,
          }
        : {
            id: "registered_domestic",
            status: "fail",
            message: `Registered delivery is domestic only (${PRINT_CENTRE_COUNTRY}); the recipient is in ${input.to.country}.`,
            expected: `to.country ${PRINT_CENTRE_COUNTRY}`,
            actual: `to.country ${input.to.country}`,
            param: "delivery",
          },
    );

  // payment_slip
  if (!input.payment) checks.push({ id: "payment_slip", status: "skipped", message: "No payment slip requested." });
  else {
    const slip = findPaymentSlip(measured.texts, measured.pageCount, input.payment);
    checks.push(
      slip.found
        ? {
            id: "payment_slip",
            status: "pass",
            message: "The payment slip (IBAN and amount) is printed on the last page.",
            page: measured.pageCount,
            box: roundBox(slip.box),
          }
        : {
            id: "payment_slip",
            status: "fail",
            message: `The payment slip is not readable on the last page (page ${measured.pageCount}): ${slip.missing.join(" and ")} not found in its text.`,
            expected: "the slip's IBAN and amount as text on the last page",
            actual: `missing ${slip.missing.join(", ")}`,
            page: measured.pageCount,
            param: "payment",
          },
    );
  }

  const failed = checks.filter((c) => c.status === "fail");
  const passed = checks.filter((c) => c.status === "pass").length;
  const firstFail = failed[0];
  const format = formatOf(first.widthMm, first.heightMm);
  const verification: LetterVerification = {
    object: "letter_verification",
    valid: failed.length === 0,
    checks: checks.map(({ param: _param, ...c }) => c),
    pageCount: measured.pageCount,
    pageSize: isA4(first) ? { widthMm: 210, heightMm: 297, format: "A4" } : { ...first, format },
    measuredPageSize: { ...first, format },
    addressPlacement: inside.length > 0 ? placement : null,
    addressLines,
    summary: `${checks.length} checks: ${passed} passed, ${failed.length} failed${failed.length ? ` (${failed.map((c) => c.id).join(", ")})` : ""}, ${checks.length - passed - failed.length} skipped.`,
    failedChecks: failed.map((c) => c.id),
    agentHint: firstFail
      ? HINTS[firstFail.id](firstFail)
      : "The letter passes every check: price it (POST /v1/letters/price), then send it (POST /v1/letters, dryRun first if unsure).",
  };
  // Registered delivery abroad is refused for the delivery itself, whatever else failed.
  const domestic = failed.find((c) => c.id === "registered_domestic");
  return { verification, measured, param: (domestic ?? firstFail)?.param ?? null };
}

/** The 422 a send answers for a letter that failed verification. */
export function refusal(result: VerifyResult): ApiError {
  const failing = result.verification.checks.filter((c) => c.status === "fail");
  const first = failing[0];
  return new ApiError(
    "unprocessable",
    `The letter failed verification (${failing.map((c) => c.id).join(", ")}): ${first?.message ?? ""} ${result.verification.agentHint}`,
    result.param,
  );
}
