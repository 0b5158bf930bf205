import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { letters, outbox, spendHolds } from "@/db/schema";
import { drainOutbox } from "@/lib/outbox/relay";
import { env } from "@/lib/env";
import { type LobFake, startLobFake } from "./fakes/lob";
import { call, newOrg, type TestOrg } from "./harness";
import { TO } from "./fixtures/letters";

/**
 * The Lob adapter against a loopback fake of Lob's API: with LOB_API_KEY set letters are live,
 * handed to Lob as a multipart upload of the verified PDF (one Lob letter per letter), canceled
 * there; Lob's signed webhooks move them (good signature applied, bad or stale signature 401 with
 * nothing changed, a replayed event id applied once); a hand-over Lob refuses (4xx) fails the
 * letter, one that fails for a while (5xx, 429, the network) is retried.
 */

const pdfBase64 = readFileSync(new URL("./fixtures/letters/a4-good.pdf", import.meta.url)).toString("base64");

let lob: LobFake;
let org: TestOrg;
const saved = { key: env.LOB_API_KEY, url: env.LOB_API_URL, secret: env.LOB_WEBHOOK_SECRET };
beforeAll(async () => {
  lob = await startLobFake();
  env.LOB_API_KEY = lob.apiKey;
  env.LOB_API_URL = lob.url;
  env.LOB_WEBHOOK_SECRET = lob.webhookSecret;
  org = await newOrg();
});
afterAll(async () => {
  env.LOB_API_KEY = saved.key;
  env.LOB_API_URL = saved.url;
  env.LOB_WEBHOOK_SECRET = saved.secret;
  await lob?.close();
});

async function sendLive() {
  const made = await call("POST", "/v1/letters", { key: org.secret, body: { to: TO, pdfBase64 } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.testMode).toBe(false);
  const ltr = [...lob.letters.values()].find((l) => l.fields["metadata[letterId]"] === made.body.id);
  if (!ltr) throw new Error("no Lob letter was made");
  return { letter: made.body as { id: string }, ltr };
}

const post = (e: { rawBody: string; headers: Record<string, string> }) =>
  call("POST", "/v1/providers/lob/events", { rawBody: e.rawBody, headers: e.headers });

test("live letters go to Lob: printMode live, the PDF uploaded, Lob's id stored", async () => {
  const whoami = await call("GET", "/v1/whoami", { key: org.secret });
  expect(whoami.body.letters).toEqual({ printMode: "live" });
  const { letter, ltr } = await sendLive();
  expect(ltr.id).toMatch(/^ltr_[0-9a-f]{16}$/);
  expect(ltr.pdf.equals(Buffer.from(pdfBase64, "base64"))).toBe(true);
  expect(ltr.fields).toMatchObject({
    "to[name]": "Erika Mustermann",
    "to[address_line1]": "Hauptstraße 5",
    "to[address_zip]": "10115",
    "to[address_country]": "DE",
    address_placement: "top_first_page",
    double_sided: "false",
  });
  const [row] = await (await getDb()).select().from(letters).where(eq(letters.id, letter.id));
  expect(row).toMatchObject({ provider: "lob", providerLetterId: ltr.id, testMode: false });
  const progress = await call("POST", `/v1/letters/${letter.id}/progress`, { key: org.secret });
  expect(progress.status).toBe(400);
});

test("Lob's webhooks: a good signature moves the letter, a bad or stale one is 401, a replay is applied once", async () => {
  const { letter, ltr } = await sendLive();
  const mailed = lob.event(ltr.id, "letter.mailed");
  const first = await post(mailed);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body).toEqual({ received: true, applied: 1 });
  expect((await call("GET", `/v1/letters/${letter.id}`, { key: org.secret })).body.status).toBe("submitted");

  // The same delivery again (Lob's retry, or a replay by someone who captured it): applied once.
  expect((await post(mailed)).body).toEqual({ received: true, applied: 0 });

  const forged = lob.event(ltr.id, "letter.returned_to_sender");
  const bad = await post({ ...forged, headers: { ...forged.headers, "lob-signature": "0".repeat(64) } });
  expect(bad.status).toBe(401);
  expect(bad.body.error.code).toBe("invalid_signature");
  const tampered = await post({ ...forged, rawBody: forged.rawBody.replace("returned_to_sender", "delivered") });
  expect(tampered.status).toBe(401);
  const stale = await post(lob.event(ltr.id, "letter.delivered", { timestamp: Date.now() - 10 * 60 * 1000 }));
  expect(stale.status).toBe(401);
  const unsigned = await post({ rawBody: forged.rawBody, headers: { "content-type": "application/json" } });
  expect(unsigned.status).toBe(401);
  expect((await call("GET", `/v1/letters/${letter.id}`, { key: org.secret })).body.status).toBe("submitted");

  // Forward only: in_local_area after in_transit changes nothing; delivered is final and captures the hold.
  expect((await post(lob.event(ltr.id, "letter.in_transit"))).body.applied).toBe(1);
  expect((await post(lob.event(ltr.id, "letter.in_local_area"))).body.applied).toBe(0);
  expect((await post(lob.event(ltr.id, "letter.delivered"))).body.applied).toBe(1);
  expect((await post(lob.event(ltr.id, "letter.returned_to_sender"))).body.applied).toBe(0);
  const got = await call("GET", `/v1/letters/${letter.id}`, { key: org.secret });
  expect(got.body.status).toBe("delivered");
  expect(got.body.timeline.map((t: { status: string }) => t.status)).toEqual([
    "queued",
    "submitted",
    "in_transit",
    "delivered",
  ]);
  const events = await call("GET", `/v1/letters/${letter.id}/events`, { key: org.secret });
  expect(events.body.data.map((e: { status: string }) => e.status)).toEqual([
    "queued",
    "submitted",
    "in_transit",
    "delivered",
  ]);
  const db = await getDb();
  const [row] = await db.select().from(letters).where(eq(letters.id, letter.id));
  const [hold] = await db
    .select()
    .from(spendHolds)
    .where(eq(spendHolds.id, row?.holdId ?? ""));
  expect(hold?.status).toBe("captured");

  // An event of a letter this service does not know is acknowledged and changes nothing.
  expect((await post(lob.event("ltr_0000000000000000", "letter.mailed"))).body).toEqual({ received: true, applied: 0 });
});

test("a Lob event id is applied once: a re-signed replay changes nothing and emits no second letter.status_changed", async () => {
  const { letter, ltr } = await sendLive();
  const events = async () =>
    (await call("GET", `/v1/letters/${letter.id}/events`, { key: org.secret })).body.data.map(
      (e: { status: string }) => e.status,
    );
  const mailed = lob.event(ltr.id, "letter.mailed");
  expect((await post(mailed)).body).toEqual({ received: true, applied: 1 });
  expect(await events()).toEqual(["queued", "submitted"]);

  // The same event id, re-signed with a fresh timestamp (Lob's retry, or a replay) and even
  // carrying a later status: the id was seen, so nothing moves, however many arrive at once.
  const resigned = lob.event(ltr.id, "letter.mailed", { eventId: mailed.eventId, timestamp: Date.now() + 1000 });
  const later = lob.event(ltr.id, "letter.delivered", { eventId: mailed.eventId, timestamp: Date.now() + 2000 });
  expect(resigned.headers["lob-signature"]).not.toBe(mailed.headers["lob-signature"]);
  const replies = await Promise.all([post(resigned), post(later), post(later), post(mailed)]);
  for (const r of replies) expect(r.status === 200 ? r.body : r).toEqual({ received: true, applied: 0 });
  const got = await call("GET", `/v1/letters/${letter.id}`, { key: org.secret });
  expect(got.body.status).toBe("submitted");
  expect(got.body.timeline).toHaveLength(2);
  expect(await events()).toEqual(["queued", "submitted"]);

  // A new event id is a new event.
  expect((await post(lob.event(ltr.id, "letter.delivered"))).body.applied).toBe(1);
  expect(await events()).toEqual(["queued", "submitted", "delivered"]);
});

test("cancel reaches Lob", async () => {
  const { letter, ltr } = await sendLive();
  const canceled = await call("POST", `/v1/letters/${letter.id}/cancel`, { key: org.secret });
  expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
  expect(lob.letters.get(ltr.id)?.deleted).toBe(true);
});

async function sendQueued() {
  const made = await call("POST", "/v1/letters", { key: org.secret, body: { to: TO, pdfBase64 } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const db = await getDb();
  const [entry] = await db.select().from(outbox).where(eq(outbox.subjectId, made.body.id));
  if (!entry) throw new Error("no outbox entry");
  return { id: made.body.id as string, entryId: entry.id };
}

const letterRow = async (id: string) => (await (await getDb()).select().from(letters).where(eq(letters.id, id)))[0];
const entryRow = async (id: string) => (await (await getDb()).select().from(outbox).where(eq(outbox.id, id)))[0];

test("a hand-over Lob refuses (422) fails the letter with Lob's reason, releases the hold, emits the change", async () => {
  lob.faults.push({ status: 422, message: "address_line1 is undeliverable" });
  const { id, entryId } = await sendQueued();
  const got = await call("GET", `/v1/letters/${id}`, { key: org.secret });
  expect(got.body.status).toBe("failed");
  expect(got.body.failureReason).toContain("address_line1 is undeliverable");
  const events = await call("GET", `/v1/letters/${id}/events`, { key: org.secret });
  expect(events.body.data.map((e: { status: string }) => e.status)).toEqual(["queued", "failed"]);
  const row = await letterRow(id);
  const [hold] = await (await getDb())
    .select()
    .from(spendHolds)
    .where(eq(spendHolds.id, row?.holdId ?? ""));
  expect(hold?.status).toBe("released");
  expect(await entryRow(entryId)).toMatchObject({ status: "failed" });
  // Never handed over again: a relay pass finds nothing to do, Lob made no letter.
  expect(await drainOutbox(await getDb(), { ids: [entryId], ignoreLeases: true })).toBe(0);
  expect([...lob.letters.values()].some((l) => l.fields["metadata[letterId]"] === id)).toBe(false);
});

test("a hand-over that fails for a while (500, 429, a dropped connection) stays queued and is retried", async () => {
  for (const fault of [
    { status: 500, message: "internal" },
    { status: 429, message: "slow down" },
    "network",
  ] as const) {
    lob.faults.push(fault);
    const { id, entryId } = await sendQueued();
    expect((await letterRow(id))?.status).toBe("queued");
    expect(await entryRow(entryId)).toMatchObject({ status: "pending", attempts: 1 });
    // The relay's retry (its backoff skipped): handed over, Lob's id stored.
    expect(await drainOutbox(await getDb(), { ids: [entryId], ignoreLeases: true })).toBe(1);
    const row = await letterRow(id);
    expect(row?.status).toBe("queued");
    expect(row?.providerLetterId).toMatch(/^ltr_/);
    expect(await entryRow(entryId)).toMatchObject({ status: "done" });
  }
});
