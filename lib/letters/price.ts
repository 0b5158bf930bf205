import { z } from "zod";
import { env } from "@/lib/env";
import type { PrintOptions } from "./contracts";
import { type Delivery, PRINT_CENTRE_COUNTRY } from "./geometry";

/**
 * Letter prices in integer USD cents, from the deployment's price table (`LETTER_PRICES`, JSON,
 * merged over the defaults below). `priceLetter` is the one formula: the price endpoint answers it
 * and a send holds exactly it under the account budget.
 */

const tableSchema = z.object({
  /** Printing, envelope and handling of one letter (its first sheet). */
  baseCents: z.int().min(0).default(60),
  /** Each sheet after the first. */
  extraSheetCents: z.int().min(0).default(12),
  /** Colour, per printed page. */
  colorPageCents: z.int().min(0).default(8),
  postageCents: z
    .object({
      domestic: z.int().min(0).default(95),
      eu: z.int().min(0).default(125),
      world: z.int().min(0).default(180),
    })
    .default({ domestic: 95, eu: 125, world: 180 }),
  registeredCents: z.int().min(0).default(265),
});
export type PriceTable = z.infer<typeof tableSchema>;

let cached: { raw: string | undefined; table: PriceTable } | null = null;
export function priceTable(): PriceTable {
  if (cached && cached.raw === env.LETTER_PRICES) return cached.table;
  const table = tableSchema.parse(env.LETTER_PRICES ? JSON.parse(env.LETTER_PRICES) : {});
  cached = { raw: env.LETTER_PRICES, table };
  return table;
}

const EU = new Set("AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK".split(" "));

export type Zone = "domestic" | "eu" | "world";
export const zoneOf = (country: string): Zone =>
  country === PRINT_CENTRE_COUNTRY ? "domestic" : EU.has(country) ? "eu" : "world";

/** Business days from hand-over to delivery, by zone (for `expectedDeliveryDate`). */
export const TRANSIT_DAYS: Record<Zone, number> = { domestic: 2, eu: 4, world: 8 };

export function priceLetter(input: { pageCount: number; country: string; print: PrintOptions; delivery: Delivery }) {
  const t = priceTable();
  const zone = zoneOf(input.country);
  const sheets = input.print.sides === "duplex" ? Math.ceil(input.pageCount / 2) : input.pageCount;
  const lines = [
    { item: "print and envelope (first sheet)", cents: t.baseCents },
    ...(sheets > 1 ? [{ item: `${sheets - 1} more sheet(s)`, cents: (sheets - 1) * t.extraSheetCents }] : []),
    ...(input.print.color
      ? [{ item: `colour, ${input.pageCount} page(s)`, cents: input.pageCount * t.colorPageCents }]
      : []),
    { item: `postage (${zone})`, cents: t.postageCents[zone] },
    ...(input.delivery === "registered" ? [{ item: "registered delivery", cents: t.registeredCents }] : []),
  ];
  return {
    object: "letter_price" as const,
    priceCents: lines.reduce((s, l) => s + l.cents, 0),
    currency: "usd" as const,
    zone,
    sheets,
    lines,
  };
}

/** The date `days` business days after `from` (Saturday and Sunday skipped), as YYYY-MM-DD. */
export function addBusinessDays(from: Date, days: number): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  let left = days;
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + 1);
    const wd = d.getUTCDay();
    if (wd !== 0 && wd !== 6) left--;
  }
  return d.toISOString().slice(0, 10);
}
