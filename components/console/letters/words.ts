import type { Letter, LetterStatus } from "@/lib/letters/contracts";
import type { Tone } from "../ui";

/**
 * Words and colours for letters in the console. Cancel and progress follow the API's rules
 * (lib/letters/letters.ts: cancel until processing ends; progress moves a test letter that is not
 * final); the console only decides whether to offer the button, the API still decides.
 */

export const LETTER_STATUS_WORDS: Record<LetterStatus, string> = {
  draft: "Draft",
  queued: "Queued",
  processing: "Processing",
  printable: "Printable",
  submitted: "Submitted to the carrier",
  in_transit: "In transit",
  delivered: "Delivered",
  undeliverable: "Undeliverable",
  canceled: "Canceled",
  failed: "Failed",
};

/** Every status, in the order a letter moves through them (the words' keys). */
export const LETTER_STATUSES = Object.keys(LETTER_STATUS_WORDS) as LetterStatus[];

export const LETTER_STATUS_TONES: Record<LetterStatus, Tone> = {
  draft: "gray",
  queued: "yellow",
  processing: "yellow",
  printable: "blue",
  submitted: "blue",
  in_transit: "blue",
  delivered: "green",
  undeliverable: "red",
  canceled: "gray",
  failed: "red",
};

const FINAL: readonly LetterStatus[] = ["delivered", "undeliverable", "canceled", "failed"];
const CANCELABLE: readonly LetterStatus[] = ["draft", "queued", "processing"];

export const isFinalLetterStatus = (s: LetterStatus) => FINAL.includes(s);
export const canCancelLetter = (s: LetterStatus) => CANCELABLE.includes(s);

/** Why Cancel is not offered, in words. */
export function cancelRefusal(status: LetterStatus): string {
  if (status === "canceled") return "This letter is already canceled.";
  if (isFinalLetterStatus(status))
    return `This letter is ${LETTER_STATUS_WORDS[status].toLowerCase()}: its journey is over, so there is nothing to cancel.`;
  return `This letter is ${LETTER_STATUS_WORDS[status].toLowerCase()}: processing has ended, and a letter can be canceled only while it is queued or processing.`;
}

/** Integer cents as dollars ("$1.23"). */
export const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

type Address = Letter["to"];

/** A postal address as its printed lines. */
export function addressLines(a: Address): string[] {
  return [
    a.name,
    a.company,
    [a.street, a.houseNumber].filter(Boolean).join(" ") || null,
    a.poBox ? `PO Box ${a.poBox}` : null,
    a.addressLine2,
    [a.postalCode, a.city].filter(Boolean).join(" ") || null,
    a.country,
  ].filter((l): l is string => Boolean(l));
}

/** One line: who and where ("Erika Mustermann, Berlin, DE"). */
export const addressSummary = (a: Address) =>
  [a.name ?? a.company, a.city, a.country].filter(Boolean).join(", ") || "—";
