import { PDFDocument } from "pdf-lib";
import QRCode from "qrcode";
import { z } from "zod";
import { type Box, union } from "./geometry";
import type { MeasuredText } from "./pdf";

/**
 * The payment slip a template letter can carry (the spec's `payment`: a structured payment object,
 * template path only, the slip rendered into the verified PDF). The slip is a SEPA credit transfer
 * on a page of its own, rendered apart from the letter and appended as its last page (so no
 * template's CSS can move, hide or overlap it): a cut line, payee, IBAN, BIC, amount, reference and
 * due date printed as text, and the EPC069-12 QR code ("GiroCode", version 002) that banking apps scan to pre-fill
 * the transfer. Limits are the EPC's: name ≤ 70, IBAN ≤ 34 (checked with ISO 13616 mod 97),
 * amount 0.01–999,999,999.99 EUR, remittance ≤ 140. Verification finds the IBAN and the amount in
 * the last page's text (`payment_slip`), so a PDF that lost the slip's text fails.
 */

const compact = (s: string) => s.replace(/\s+/g, "").toUpperCase();

/** ISO 13616: move the first four characters to the end, letters to numbers, mod 97 must be 1. */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (let i = 0; i < digits.length; i += 7) rest = Number(String(rest) + digits.slice(i, i + 7)) % 97;
  return rest === 1;
}

export const MAX_PAYMENT_CENTS = 99_999_999_999;

export const paymentSchema = z
  .strictObject({
    type: z.literal("sepa_credit_transfer").default("sepa_credit_transfer"),
    recipientName: z.string().trim().min(1).max(70).describe("The payee, as the bank shows it (at most 70)."),
    iban: z
      .string()
      .max(42)
      .transform(compact)
      .refine(ibanValid, "Not a valid IBAN (ISO 13616: country, check digits, account; mod 97 must be 1).")
      .describe("The payee's IBAN; spaces are ignored, printed in groups of four."),
    bic: z
      .string()
      .transform(compact)
      .refine((b) => /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(b), "A BIC has 8 or 11 characters.")
      .optional()
      .describe("The payee's BIC (optional within the EEA)."),
    amountCents: z.int().min(1).max(MAX_PAYMENT_CENTS).describe("The amount in euro cents."),
    currency: z.literal("EUR").default("EUR").describe("SEPA credit transfers are in euro."),
    reference: z
      .string()
      .trim()
      .min(1)
      .max(140)
      .optional()
      .describe("The remittance information (e.g. an invoice number), at most 140."),
    dueDate: z.iso.date().optional().describe("Printed as the date to pay by (YYYY-MM-DD)."),
  })
  .describe(
    "A SEPA payment slip rendered into the letter (template path only): its own last page with the payee, IBAN, amount and reference and the EPC QR code (GiroCode) banking apps scan. The page counts toward `maxPages` and the price.",
  );
export type Payment = z.infer<typeof paymentSchema>;

export const paymentOut = z.object({
  type: z.literal("sepa_credit_transfer"),
  recipientName: z.string(),
  iban: z.string(),
  bic: z.string().nullable(),
  amountCents: z.int(),
  currency: z.literal("EUR"),
  reference: z.string().nullable(),
  dueDate: z.string().nullable(),
});

/** The stored form (what a letter record answers). */
export const paymentRecord = (p: Payment): z.infer<typeof paymentOut> => ({
  type: "sepa_credit_transfer",
  recipientName: p.recipientName,
  iban: p.iban,
  bic: p.bic ?? null,
  amountCents: p.amountCents,
  currency: "EUR",
  reference: p.reference ?? null,
  dueDate: p.dueDate ?? null,
});

/** A stored record read back as input (a batch's recipient). */
export const paymentOf = (stored: unknown): Payment | null => {
  const parsed = paymentSchema.safeParse(
    stored && typeof stored === "object"
      ? Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== null))
      : undefined,
  );
  return parsed.success ? parsed.data : null;
};

/** `1234.56`: the amount as printed and as the check looks for it. */
export const amountText = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
const ibanGroups = (iban: string) => iban.replace(/(.{4})(?=.)/g, "$1 ");

/** EPC069-12 v002 payload: service tag, version, UTF-8, SCT, BIC, name, IBAN, amount, purpose, refs. */
export function epcPayload(p: Payment): string {
  return [
    "BCD",
    "002",
    "1",
    "SCT",
    p.bic ?? "",
    p.recipientName,
    p.iban,
    `EUR${amountText(p.amountCents)}`,
    "",
    "",
    p.reference ?? "",
  ].join("\n");
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** The slip's page as its own HTML document (A4; the QR code inline SVG, nothing fetched). */
export async function paymentSlipHtml(p: Payment): Promise<string> {
  const svg = await QRCode.toString(epcPayload(p), { type: "svg", errorCorrectionLevel: "M", margin: 0 });
  const row = (label: string, value: string) =>
    `<tr><td style="padding:1.2mm 6mm 1.2mm 0;vertical-align:top;white-space:nowrap">${label}</td><td style="padding:1.2mm 0;font-weight:bold">${escapeHtml(value)}</td></tr>`;
  const rows = [
    row("Payee", p.recipientName),
    row("IBAN", ibanGroups(p.iban)),
    p.bic ? row("BIC", p.bic) : "",
    row("Amount", `EUR ${amountText(p.amountCents)}`),
    p.reference ? row("Reference", p.reference) : "",
    p.dueDate ? row("Pay by", p.dueDate) : "",
  ].join("");
  return `<!doctype html><html><head><meta charset="utf-8"><style>@page{size:A4;margin:0}html,body{margin:0}
body{font:10pt "DejaVu Sans","Liberation Sans",Arial,sans-serif;color:#000}</style></head><body>
<div data-payment-slip style="position:absolute;left:20mm;right:20mm;top:190mm;border-top:0.3mm dashed #000;padding-top:6mm;display:flex;gap:10mm;align-items:flex-start">
<div style="flex:1"><div style="font-size:12pt;font-weight:bold;margin-bottom:4mm">Payment slip · SEPA credit transfer</div>
<table style="border-collapse:collapse;font-size:10pt">${rows}</table></div>
<div style="width:42mm;text-align:center;font-size:8pt"><div style="width:42mm;height:42mm;margin-bottom:2mm">${svg.replace("<svg ", '<svg width="100%" height="100%" ')}</div>Scan with a banking app (GiroCode)</div>
</div></body></html>`;
}

/**
 * The letter's PDF with the slip's page appended (pdf-lib copies the page with its embedded fonts),
 * or the letter unchanged without a payment.
 */
export async function withPaymentSlip(
  letter: Uint8Array,
  p: Payment | null | undefined,
  render: (html: string) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  if (!p) return letter;
  const slip = await render(await paymentSlipHtml(p));
  const doc = await PDFDocument.load(letter);
  const slipDoc = await PDFDocument.load(slip);
  const [page] = await doc.copyPages(slipDoc, [0]);
  if (page) doc.addPage(page);
  return doc.save();
}

/** What the `payment_slip` check found: the slip's text on the last page, or what is missing. */
export function findPaymentSlip(
  texts: MeasuredText[],
  lastPage: number,
  p: Payment,
): { found: true; box: Box } | { found: false; missing: string[] } {
  const onLast = texts.filter((t) => t.page === lastPage);
  const joined = compact(onLast.map((t) => t.text).join(""));
  const missing = [
    joined.includes(p.iban) ? null : `the IBAN ${ibanGroups(p.iban)}`,
    joined.includes(compact(`EUR ${amountText(p.amountCents)}`)) ? null : `the amount EUR ${amountText(p.amountCents)}`,
  ].filter((m): m is string => m !== null);
  if (missing.length > 0 || onLast.length === 0)
    return { found: false, missing: missing.length ? missing : ["the slip's text"] };
  return { found: true, box: union(onLast.map((t) => t.box)) };
}
