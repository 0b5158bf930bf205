import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";
import { storage } from "@/lib/providers/storage";
import { type PrintProvider, PrintRefused, type PrintStatus, type PrintSubmission } from "./types";

/**
 * Lob (https://docs.lob.com) as the live print provider, chosen when `LOB_API_KEY` is set.
 *
 * - `submit`: `POST {LOB_API_URL}/letters`, HTTP basic auth with the key as the user name, a
 *   multipart body with the verified PDF itself as `file` (no URL to fetch: the bytes go in the
 *   request, which Lob's SDK cannot do), `to[...]`/`from[...]` in Lob's address fields, `color`,
 *   `double_sided`, `address_placement` `top_first_page` (our PDF carries the address in its
 *   window), `use_type` `operational`, `extra_service` `registered` for registered letters,
 *   `metadata[letterId]`; `Idempotency-Key` is our letter id, so a retried hand-over makes one Lob
 *   letter. Answers Lob's `ltr_…` id. A 4xx that retrying cannot change (400, 404, 413, 422…: the
 *   letter itself is refused, e.g. an address Lob cannot mail) throws `PrintRefused`, so the letter
 *   fails; 401/403 (our key), 408, 409, 425, 429, 5xx and network failures are retried.
 * - `cancel`: `DELETE {LOB_API_URL}/letters/{id}` (Lob cancels until its send date).
 * - Webhooks: `Lob-Signature` is the hex HMAC-SHA256, keyed with the webhook's secret, of
 *   `${Lob-Signature-Timestamp}.${raw body}`; `lobStatusOf` maps Lob's letter event types to ours.
 *
 * The wire shapes are Lob's v1 (the fields of `@lob/lob-typescript-sdk`'s `LetterEditable`), typed
 * here by hand rather than with the SDK, whose client needs a URL or a file path for the PDF.
 */

export class LobError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "LobError";
  }
}

/** Lob's answers that say the letter itself is refused (retrying the same request cannot succeed). */
export const lobRefuses = (status: number) =>
  status >= 400 && status < 500 && ![401, 403, 408, 409, 425, 429].includes(status);

const auth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

/** Our address record → Lob's address fields (US addresses use `address_state`; others leave it out). */
function lobAddress(form: FormData, prefix: "to" | "from", a: Record<string, string | null>): void {
  const street = [a.street, a.houseNumber].filter(Boolean).join(" ") || (a.poBox ? `PO Box ${a.poBox}` : "");
  const fields: Record<string, string | null | undefined> = {
    name: a.name,
    company: a.company,
    address_line1: street,
    address_line2: a.addressLine2,
    address_city: a.city,
    address_zip: a.postalCode,
    address_country: a.country,
  };
  for (const [k, v] of Object.entries(fields)) if (v) form.append(`${prefix}[${k}]`, v);
}

async function lobFetch(path: string, init: RequestInit & { idempotencyKey?: string }): Promise<unknown> {
  const key = env.LOB_API_KEY;
  if (!key) throw new LobError("LOB_API_KEY is not set", 0);
  const headers = new Headers(init.headers);
  headers.set("authorization", auth(key));
  if (init.idempotencyKey) headers.set("idempotency-key", init.idempotencyKey);
  const res = await fetch(`${env.LOB_API_URL.replace(/\/$/, "")}${path}`, {
    ...init,
    headers,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const body: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const message = (body as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${res.status}`;
    throw new LobError(`Lob refused the request: ${message}`, res.status);
  }
  return body;
}

export async function submitToLob(letter: PrintSubmission): Promise<{ providerLetterId: string }> {
  const pdf = await storage().get(letter.pdfKey);
  if (!pdf) throw new LobError(`the letter's PDF ${letter.pdfKey} is not in storage`, 0);
  const form = new FormData();
  form.append("description", `letter ${letter.letterId}`);
  lobAddress(form, "to", letter.to);
  if (letter.from) lobAddress(form, "from", letter.from);
  form.append("color", String(letter.color));
  form.append("double_sided", String(letter.sides === "duplex"));
  form.append("address_placement", "top_first_page");
  form.append("use_type", "operational");
  if (letter.delivery === "registered") form.append("extra_service", "registered");
  form.append("metadata[letterId]", letter.letterId);
  form.append("metadata[orgId]", letter.orgId);
  form.append("file", new Blob([new Uint8Array(pdf)], { type: "application/pdf" }), `${letter.letterId}.pdf`);
  let made: { id?: unknown };
  try {
    made = (await lobFetch("/letters", { method: "POST", body: form, idempotencyKey: letter.letterId })) as {
      id?: unknown;
    };
  } catch (err) {
    if (err instanceof LobError && lobRefuses(err.status)) throw new PrintRefused(err.message, err.status);
    throw err;
  }
  if (typeof made?.id !== "string" || !made.id.startsWith("ltr_"))
    throw new LobError("Lob answered a letter without an ltr_ id", 502);
  return { providerLetterId: made.id };
}

export async function cancelAtLob(providerLetterId: string): Promise<void> {
  await lobFetch(`/letters/${encodeURIComponent(providerLetterId)}`, { method: "DELETE" });
}

export const lobPrintCentre: PrintProvider = {
  name: "lob",
  mode: "live",
  submit: submitToLob,
  cancel: cancelAtLob,
};

// ---- webhooks ---------------------------------------------------------------------------------

/** How far `Lob-Signature-Timestamp` may be from now. */
export const LOB_SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

export const lobSignature = (secret: string, timestamp: string, rawBody: string) =>
  createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");

/**
 * Why a Lob webhook does not verify, or null when it does. The timestamp is read as Unix
 * milliseconds when it has 13 or more digits, else as seconds.
 */
export function lobSignatureProblem(
  secret: string | undefined,
  headers: Headers,
  rawBody: string,
  now = Date.now(),
): string | null {
  if (!secret) return "no LOB_WEBHOOK_SECRET is configured";
  const timestamp = headers.get("lob-signature-timestamp") ?? "";
  const given = headers.get("lob-signature") ?? "";
  if (!/^\d{1,16}$/.test(timestamp) || !given) return "missing Lob-Signature or Lob-Signature-Timestamp";
  const ms = timestamp.length >= 13 ? Number(timestamp) : Number(timestamp) * 1000;
  if (Math.abs(now - ms) > LOB_SIGNATURE_TOLERANCE_MS) return "stale Lob-Signature-Timestamp";
  const want = Buffer.from(lobSignature(secret, timestamp, rawBody), "utf8");
  const got = Buffer.from(given.trim().toLowerCase(), "utf8");
  if (want.length !== got.length || !timingSafeEqual(want, got)) return "bad signature";
  return null;
}

/** Lob's letter event types → the status they move a letter to (others are acknowledged, not applied). */
const LOB_EVENT_STATUS: Record<string, PrintStatus | "canceled" | "failed"> = {
  "letter.created": "processing",
  "letter.rendered_pdf": "printable",
  "letter.rendered_thumbnails": "printable",
  "letter.mailed": "submitted",
  "letter.in_transit": "in_transit",
  "letter.in_local_area": "in_transit",
  "letter.processed_for_delivery": "in_transit",
  "letter.re-routed": "in_transit",
  "letter.delivered": "delivered",
  "letter.returned_to_sender": "undeliverable",
  "letter.deleted": "canceled",
  "letter.failed": "failed",
  "letter.rejected": "failed",
  "letter.certified.mailed": "submitted",
  "letter.certified.in_transit": "in_transit",
  "letter.certified.in_local_area": "in_transit",
  "letter.certified.processed_for_delivery": "in_transit",
  "letter.certified.re-routed": "in_transit",
  "letter.certified.delivered": "delivered",
  "letter.certified.returned_to_sender": "undeliverable",
};

export const lobStatusOf = (eventType: string) => LOB_EVENT_STATUS[eventType] ?? null;

/** The fields of Lob's event object this service reads. */
export interface LobEvent {
  id: string;
  eventType: string;
  /** Lob's `ltr_…` id. */
  letterId: string;
  /** Our letter id, from the metadata the letter was made with (when Lob's id is not stored yet). */
  ourLetterId: string | null;
}

/** Reads Lob's event object (`{id: "evt_…", event_type: {id}, body: {id: "ltr_…"}, reference_id}`). */
export function parseLobEvent(body: Record<string, unknown>): LobEvent | null {
  const id = body.id;
  const type = (body.event_type as { id?: unknown } | undefined)?.id ?? body.event_type;
  const letter = (body.body as { id?: unknown } | undefined)?.id ?? body.reference_id;
  if (typeof id !== "string" || typeof type !== "string" || typeof letter !== "string") return null;
  const ours = ((body.body as { metadata?: { letterId?: unknown } } | undefined)?.metadata ?? {}).letterId;
  return { id, eventType: type, letterId: letter, ourLetterId: typeof ours === "string" ? ours : null };
}
