import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { letterBatches, letters } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { closeRenderer } from "@/lib/providers/print/render";
import { fanoutChunk } from "@/lib/workflows/workflow-events";
import { publishWorkflowEventsNow } from "@/lib/workflows/publish";
import { call, newKey, newOrg } from "../harness";
import { type Harness, sleep, startHarness, waitForRun } from "./harness";
import { FROM, starterTemplate } from "../fixtures/letters";

/**
 * Letter batches through the real fan-out functions and `serve()`: 30 recipients in two chunks,
 * each letter rendered, verified and priced like a single send; a recipient whose letter fails its
 * check (too many pages) and those past the spend cap are reported per item while the others are
 * made; an Idempotency-Key answers the same batch; a repeated chunk makes no second letter.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
}, 60_000);
afterAll(async () => {
  await closeRenderer();
  await h?.close();
});

const recipient = (i: number) => ({
  to: {
    name: `Erika Mustermann ${i}`,
    street: "Hauptstraße",
    houseNumber: String(i + 1),
    postalCode: "10115",
    city: "Berlin",
    country: "DE",
  },
  templateData: { greeting: `Dear reader ${i},`, body: "Short body.", closing: "Regards" },
});

async function completed(key: string, id: string, ms = 120_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await call("GET", `/v1/letters/batch/${id}`, { key });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    if (got.body.status === "completed") return got.body;
    if (Date.now() > deadline) throw new Error(`batch not completed: ${JSON.stringify(got.body).slice(0, 500)}`);
    await sleep(200);
  }
}

test("a batch makes one letter per recipient, reports each failure, and is idempotent", async () => {
  const o = await newOrg();
  const req = await call("GET", "/v1/letters/requirements", { key: o.secret });
  const starter = req.body.starterTemplates[0];
  const template = await call("POST", "/v1/letters/templates", {
    key: o.secret,
    body: { name: starter.name, html: starter.html, variables: starter.variables },
  });
  expect(template.status, JSON.stringify(template.body)).toBe(200);
  const price = await call("POST", "/v1/letters/price", { key: o.secret, body: { pageCount: 1, country: "DE" } });
  expect(price.status, JSON.stringify(price.body)).toBe(200);
  const cap = await call("PUT", "/v1/budgets", {
    key: o.secret,
    body: { scope: "account", limits: { maxSpendPerDayCents: (price.body.priceCents as number) * 20 } },
  });
  expect(cap.status).toBe(200);

  const recipients = Array.from({ length: 30 }, (_, i) => recipient(i));
  // Recipient 3's body runs over several pages: its letter fails page_count (maxPages 1), only it.
  recipients[3] = { ...recipient(3), templateData: { ...recipient(3).templateData, body: "word ".repeat(4000) } };
  const body = { templateId: template.body.id, from: FROM, recipients, maxPages: 1 };
  const made = await call("POST", "/v1/letters/batch", { key: o.secret, body, headers: { "Idempotency-Key": "b-1" } });
  expect(made.status, JSON.stringify(made.body).slice(0, 500)).toBe(202);
  expect(made.body).toMatchObject({ object: "letter_batch", total: 30 });
  const again = await call("POST", "/v1/letters/batch", { key: o.secret, body, headers: { "Idempotency-Key": "b-1" } });
  expect(again.body.id).toBe(made.body.id);

  const done = await completed(o.secret, made.body.id);
  // 29 valid letters, 20 fit under the cap: 20 created, 9 refused by the cap, 1 by its check.
  expect(done).toMatchObject({ total: 30, created: 20, failed: 10, pending: 0 });
  const failed = done.items.filter((i: { status: string }) => i.status === "failed");
  expect(failed.find((i: { index: number }) => i.index === 3)?.error).toMatchObject({ code: "unprocessable" });
  expect(failed.filter((i: { error: { code: string } }) => i.error.code === "spend_cap_reached")).toHaveLength(9);

  const db = await getDb();
  const rows = await db
    .select({ id: letters.id, status: letters.status })
    .from(letters)
    .where(and(eq(letters.orgId, o.orgId), sql`${letters.metadata}->>'batchId' = ${made.body.id}`));
  expect(rows).toHaveLength(20);
  const createdIds = done.items
    .filter((i: { status: string }) => i.status === "created")
    .map((i: { letterId: string }) => i.letterId);
  expect(new Set(rows.map((r) => r.id))).toEqual(new Set(createdIds));
  const one = await call("GET", `/v1/letters/${createdIds[0]}`, { key: o.secret });
  expect(one.body).toMatchObject({ status: expect.any(String), pageCount: 1, testMode: true });

  // The first chunk again (as a redelivered event would be): applied once, no second letter.
  const [batch] = await db.select().from(letterBatches).where(eq(letterBatches.id, made.body.id));
  const fanoutId = batch?.fanoutId ?? "";
  await publishWorkflowEventsNow(db, [
    fanoutChunk.create({ fanoutId, chunk: 0, after: null, last: "0000024" }, { id: `again:${fanoutId}:0` }),
  ]);
  await waitForRun("svc-fanout-chunk", (r) => r.event.id === `again:${fanoutId}:0` && r.status === "completed");
  const [n] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(letters)
    .where(and(eq(letters.orgId, o.orgId), sql`${letters.metadata}->>'batchId' = ${made.body.id}`));
  expect(n?.n).toBe(20);

  // Another organization sees nothing; a read-only key may read but not send a batch.
  const other = await newOrg();
  expect((await call("GET", `/v1/letters/batch/${made.body.id}`, { key: other.secret })).status).toBe(404);
  const reader = await newKey(o, { scopes: ["letters:read"] });
  expect((await call("GET", `/v1/letters/batch/${made.body.id}`, { key: reader.secret })).status).toBe(200);
  expect((await call("POST", "/v1/letters/batch", { key: reader.secret, body })).status).toBe(403);
}, 180_000);

test("the request is checked first: 1..1,000 recipients, a template of the organization", async () => {
  const o = await newOrg();
  const none = await call("POST", "/v1/letters/batch", {
    key: o.secret,
    body: { templateId: "0192f1d0-8c1e-7a34-9b7a-2f3e4d5c6b7a", recipients: [] },
  });
  expect(none.status).toBe(400);
  expect(none.body.error.param).toBe("recipients");
  const many = await call("POST", "/v1/letters/batch", {
    key: o.secret,
    body: {
      templateId: "0192f1d0-8c1e-7a34-9b7a-2f3e4d5c6b7a",
      recipients: Array.from({ length: 1001 }, (_, i) => recipient(i)),
    },
  });
  expect(many.status).toBe(400);
  const unknown = await call("POST", "/v1/letters/batch", {
    key: o.secret,
    body: { templateId: "0192f1d0-8c1e-7a34-9b7a-2f3e4d5c6b7a", recipients: [recipient(0)] },
  });
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.param).toBe("templateId");
});

test("each recipient's payment slip is its own: a page more, its amount on the letter", async () => {
  const o = await newOrg();
  const templateId = await starterTemplate(o.secret);
  const payment = (cents: number) => ({
    recipientName: "Beispiel GmbH",
    iban: "DE89370400440532013000",
    amountCents: cents,
  });
  const recipients = [
    { ...recipient(0), payment: payment(1000) },
    { ...recipient(1), payment: payment(2550) },
    recipient(2),
  ];
  const made = await call("POST", "/v1/letters/batch", {
    key: o.secret,
    body: { templateId, from: FROM, recipients },
  });
  expect(made.status, JSON.stringify(made.body).slice(0, 500)).toBe(202);
  const done = await completed(o.secret, made.body.id);
  expect(done).toMatchObject({ total: 3, created: 3, failed: 0 });
  const got = await Promise.all(
    done.items.map((i: { letterId: string }) => call("GET", `/v1/letters/${i.letterId}`, { key: o.secret })),
  );
  expect(got.map((g) => [g.body.pageCount, g.body.payment?.amountCents ?? null])).toEqual([
    [2, 1000],
    [2, 2550],
    [1, null],
  ]);
}, 120_000);
