import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { getDb } from "@/db";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/** Issue 14: `q` on GET /v1/messages and GET /v1/threads (the console's search boxes call the same operations). */

async function send(org: TestOrg, body: Record<string, unknown>) {
  const res = await call("POST", "/v1/messages", { key: org.secret, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

const ids = (body: { messages?: { id: string }[]; threads?: { id: string }[] }) =>
  (body.messages ?? body.threads ?? []).map((m) => m.id).sort();

test("q finds messages by subject, sender and recipient, case-insensitively, within the organization only", async () => {
  const org = await newOrg();
  const other = await newOrg();
  const a = await newInbox(org, "search-a");
  const b = await newInbox(org, "search-b");
  const x = await newInbox(other, "search-x");
  const invoice = await send(org, {
    inboxId: a.id,
    to: "Payables@Example.com",
    subject: "Invoice 4711 for March",
    text: "attached",
  });
  const hello = await send(org, { inboxId: a.id, to: b.address, subject: "Hello there", text: "hi" });
  const percent = await send(org, { inboxId: b.id, to: "ops@example.org", subject: "Up 100% today", text: "growth" });
  await send(other, {
    inboxId: x.id,
    to: "payables@example.com",
    subject: "Invoice 4711 for March",
    text: "not yours",
  });

  const search = async (q: string, extra = "") => {
    const res = await call("GET", `/v1/messages?q=${encodeURIComponent(q)}${extra}`, { key: org.secret });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return ids(res.body);
  };
  // Subject, any case; the other organization's identical message is never found.
  expect(await search("invoice 4711")).toEqual([invoice]);
  // A recipient (stored as given, found in any case) and the sender's address.
  expect(await search("payables@example")).toEqual([invoice]);
  const fromB = await search(b.address.toUpperCase());
  // The message b sent, and the two copies of "Hello there" (sent by a, received by b), all name b.
  expect(fromB).toContain(percent);
  expect(fromB).toContain(hello);
  expect(fromB).not.toContain(invoice);
  // `%` and `_` are literal, not wildcards.
  expect(await search("100%")).toEqual([percent]);
  expect(await search("1_0")).toEqual([]);
  // q combines with the other filters.
  expect(await search("hello", `&direction=outbound`)).toEqual([hello]);

  const blank = await call("GET", "/v1/messages?q=%20%20", { key: org.secret });
  expect(blank.status).toBe(400);
  expect(blank.body.error.param).toBe("q");
});

test("q finds threads by subject", async () => {
  const org = await newOrg();
  const a = await newInbox(org, "tsearch-a");
  await send(org, { inboxId: a.id, to: "someone@example.com", subject: "Quarterly Report draft", text: "x" });
  await send(org, { inboxId: a.id, to: "someone@example.com", subject: "Lunch?", text: "y" });
  const res = await call("GET", `/v1/threads?q=${encodeURIComponent("REPORT")}`, { key: org.secret });
  expect(res.status).toBe(200);
  expect(res.body.threads.map((t: { subject: string }) => t.subject)).toEqual(["Quarterly Report draft"]);
});

test("the message search can use its trigram index (the query's expression is the index's)", async () => {
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const result = await tx.execute(
      sql.raw(
        `explain select id from messages where svc_message_search_text(subject, from_address, from_name, "to") like '%invoice%'`,
      ),
    );
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, string>[];
    expect(rows.map((r) => Object.values(r)[0]).join("\n")).toContain("messages_search_trgm_idx");
  });
});

test("the contact search (name, alias, handle ILIKE) can use its trigram indexes", async () => {
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const plan = async (query: string) => {
      const result = await tx.execute(sql.raw(`explain ${query}`));
      return ((Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, string>[])
        .map((r) => Object.values(r)[0])
        .join("\n");
    };
    expect(await plan(`select id from contacts where display_name ilike '%ada%' or alias ilike '%ada%'`)).toMatch(
      /contacts_display_name_trgm_idx[\s\S]*contacts_alias_trgm_idx/,
    );
    expect(await plan(`select contact_id from contact_handles where value ilike '%ada%'`)).toContain(
      "contact_handles_value_trgm_idx",
    );
  });
});
