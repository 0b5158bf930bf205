import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { type LetterStatusValue, letters, providerCallbacks } from "@/db/schema";
import { ApiError } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { lobSignatureProblem, lobStatusOf, parseLobEvent } from "@/lib/providers/print/lob";
import { isFinal, moveLetter } from "./lifecycle";

/**
 * `POST /v1/providers/lob/events`: Lob's webhook deliveries for letters.
 *
 * - Verified first: `Lob-Signature` over `${Lob-Signature-Timestamp}.${raw body}` with
 *   `LOB_WEBHOOK_SECRET`, the timestamp within 5 minutes (otherwise 401 `invalid_signature`,
 *   nothing stored).
 * - Applied once per Lob event id: the id (`provider_callbacks`, provider `lob`) commits with the
 *   status change, so a redelivered or replayed event is acknowledged and changes nothing.
 * - The letter is found by Lob's `ltr_…` id, else by the `letterId` in the metadata it was made
 *   with (an event can arrive before the hand-over stored Lob's id). Statuses only move forward
 *   (`letter.in_local_area` after `letter.in_transit` changes nothing; nothing moves a final
 *   letter); each move is a `letter.status_changed` event and a final one settles the hold
 *   (captured when delivered, released otherwise).
 * - Events of other resources, unknown types and unknown letters are acknowledged (200,
 *   `applied: 0`), so Lob does not retry them.
 */

const ORDER: readonly LetterStatusValue[] = ["draft", "queued", "processing", "printable", "submitted", "in_transit"];
const rank = (s: LetterStatusValue) => (isFinal(s) ? ORDER.length : ORDER.indexOf(s));

export async function receiveLobEvent(
  db: Db,
  body: Record<string, unknown>,
  raw: { body: string; headers: Headers } | null,
): Promise<{ received: true; applied: number }> {
  const problem = raw ? lobSignatureProblem(env.LOB_WEBHOOK_SECRET, raw.headers, raw.body) : "no request";
  if (problem) throw new ApiError("invalid_signature", `The Lob event does not verify: ${problem}.`);
  const event = parseLobEvent(body);
  const next = event ? lobStatusOf(event.eventType) : null;
  if (!event || !next) return { received: true, applied: 0 };
  return db.transaction(async (tx) => {
    const [byLob] = await tx
      .select()
      .from(letters)
      .where(and(eq(letters.provider, "lob"), eq(letters.providerLetterId, event.letterId)))
      .for("update");
    let row = byLob;
    if (!row && event.ourLetterId && /^[0-9a-f-]{36}$/i.test(event.ourLetterId)) {
      const [byOurs] = await tx
        .select()
        .from(letters)
        .where(and(eq(letters.provider, "lob"), eq(letters.id, event.ourLetterId)))
        .for("update");
      row = byOurs;
    }
    if (!row) {
      log.warn("Lob event for an unknown letter", { lobLetterId: event.letterId, eventId: event.id });
      return { received: true as const, applied: 0 };
    }
    const [fresh] = await tx
      .insert(providerCallbacks)
      .values({ provider: "lob", callbackKey: event.id })
      .onConflictDoNothing()
      .returning({ key: providerCallbacks.callbackKey });
    if (!fresh) return { received: true as const, applied: 0 };
    if (isFinal(row.status) || rank(next) <= rank(row.status)) return { received: true as const, applied: 0 };
    const reason = `Lob: ${event.eventType}.`;
    const moved = await moveLetter(tx, row, next, reason);
    if (!row.providerLetterId)
      await tx.update(letters).set({ providerLetterId: event.letterId }).where(eq(letters.id, moved.id));
    return { received: true as const, applied: 1 };
  });
}
