/**
 * The one source of truth for a letter's page geometry, in millimetres from the page's top-left
 * corner: `GET /v1/letters/requirements` publishes it, verification measures against it, the
 * starter templates are laid out on it and the print provider prints on it.
 */

export interface Box {
  /** Left edge, mm from the page's left edge. */
  x: number;
  /** Top edge, mm from the page's top edge. */
  y: number;
  width: number;
  height: number;
}

export const A4 = { widthMm: 210, heightMm: 297, format: "A4" } as const;
/** A page within this many millimetres of A4 on both sides is A4. */
export const PAGE_TOLERANCE_MM = 1;
/** The service's own page limit (a request's `maxPages` can only lower it). */
export const MAX_PAGES = 10;
/** Largest PDF verification reads (decoded bytes). */
export const MAX_PDF_BYTES = 4 * 1024 * 1024;
/** No text closer than this to any edge of any page (the printer's grip and trim). */
export const EDGE_CLEARANCE_MM = 5;

export type AddressPlacement = "left" | "right";
export type Delivery = "standard" | "registered";

/** DIN 5008 form B address field (85 × 45 mm at 45 mm from the top), left or right. */
export const ADDRESS_WINDOWS: Record<AddressPlacement, Box> = {
  left: { x: 20, y: 45, width: 85, height: 45 },
  right: { x: 110, y: 45, width: 85, height: 45 },
};

/**
 * Registered letters: the carrier's label sits at y = 50–67 mm in the window, so the recipient
 * block must stay within y = 67–90 mm (the window's lower part).
 */
export const REGISTERED = {
  recipientBlock: (placement: AddressPlacement): Box => ({ ...ADDRESS_WINDOWS[placement], y: 67, height: 23 }),
  carrierLabel: (placement: AddressPlacement): Box => ({ ...ADDRESS_WINDOWS[placement], y: 50, height: 17 }),
  printCentreCountry: "DE",
} as const;

/** The franking zone on page 1 (postage imprint and carrier codes): top right, nothing printed there. */
export const FRANKING_ZONE: Box = { x: 120, y: 0, width: 90, height: 40 };

/** The print centre's country: `registered` delivery is domestic to it. */
export const PRINT_CENTRE_COUNTRY = "DE";

export const round1 = (n: number) => Math.round(n * 10) / 10;

/** The overlap of two boxes, or null. */
export function intersect(a: Box, b: Box): Box | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const r = Math.min(a.x + a.width, b.x + b.width);
  const bot = Math.min(a.y + a.height, b.y + b.height);
  if (r <= x || bot <= y) return null;
  return { x, y, width: r - x, height: bot - y };
}

/** True when `inner` lies within `outer` (with `slack` mm of tolerance). */
export function contains(outer: Box, inner: Box, slack = 0.5): boolean {
  return (
    inner.x >= outer.x - slack &&
    inner.y >= outer.y - slack &&
    inner.x + inner.width <= outer.x + outer.width + slack &&
    inner.y + inner.height <= outer.y + outer.height + slack
  );
}

/** The smallest box holding every box given (at least one). */
export function union(boxes: Box[]): Box {
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  const r = Math.max(...boxes.map((b) => b.x + b.width));
  const bot = Math.max(...boxes.map((b) => b.y + b.height));
  return { x, y, width: r - x, height: bot - y };
}

export const roundBox = (b: Box): Box => ({
  x: round1(b.x),
  y: round1(b.y),
  width: round1(b.width),
  height: round1(b.height),
});
