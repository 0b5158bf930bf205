import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { attachments, idempotencyKeys, requestLogs, suppressions } from "@/db/schema";
import { recordAudit } from "@/lib/core/audit";
import { runJob } from "@/lib/compliance/job-steps";
import { verifyAuditExport } from "@/lib/compliance/verify";
import { storage } from "@/lib/providers/storage";
import { flushRequestLog } from "@/lib/request-logs/recorder";
import { verifyArtifact } from "@/lib/trust/artifact";
import { sha256Hex } from "@/lib/trust/jcs";
import type { Jwks } from "@/lib/trust/jwk";
import { jwksKeyOf, listSigningKeys } from "@/lib/trust/keys";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * Erasure and purge jobs: after an erasure nothing of the subject is readable through any endpoint;
 * the certificate is signed and explains the audit chain's gap; a purge empties an inbox.
 */

async function jwks(): Promise<Jwks> {
  return { keys: (await listSigningKeys(await getDb())).map(jwksKeyOf) };
}

const tag = () => Math.random().toString(36).slice(2, 10);
const b64 = (s: string) => Buffer.from(s).toString("base64");

/** Everything a key can read that might name the subject, as text. */
async function everythingReadable(org: TestOrg, extra: string[] = []): Promise<string> {
  const paths = [
    "/v1/messages?limit=100",
    "/v1/threads?limit=100",
    "/v1/events?limit=100",
    "/v1/events?limit=100&order=newest",
    "/v1/contacts?limit=100",
    "/v1/audit-logs?limit=100",
    "/v1/audit-logs/export",
    ...extra,
  ];
  const out: string[] = [];
  for (const p of paths) {
    const res = await call("GET", p, { key: org.secret });
    expect(res.status, p).toBe(200);
    out.push(JSON.stringify(res.body));
  }
  return out.join("\n").toLowerCase();
}

async function completed(org: TestOrg, kind: "erasures" | "purges", id: string) {
  await runJob(await getDb(), id);
  const res = await call("GET", `/v1/compliance/${kind}/${id}`, { key: org.secret });
  expect(res.status).toBe(200);
  expect(res.body.job.status).toBe("completed");
  return res.body.job;
}

describe("erasure", () => {
  test("by address: nothing of the subject is readable through any endpoint; the certificate is signed and explains the chain's gap", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const subject = `Subject.${tag()}@Example.com`;
    const lower = subject.toLowerCase();
    const control = `keep-${tag()}@example.com`;
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      headers: { "Idempotency-Key": `erase-${tag()}` },
      body: {
        inboxId: inbox.id,
        to: subject,
        cc: control,
        subject: "Your private matter",
        text: "secret body",
        attachments: [{ filename: "notes.txt", contentType: "text/plain", contentBase64: b64("private notes") }],
      },
    });
    expect(sent.status).toBe(200);
    const kept = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: control, subject: "Unrelated", text: "stays" },
    });
    const contact = await call("POST", "/v1/contacts", {
      key: org.secret,
      body: { displayName: "Subject Person", handles: [{ channel: "email", value: subject }] },
    });
    expect(contact.status).toBe(200);
    const db = await getDb();
    await db
      .insert(suppressions)
      .values({ orgId: org.orgId, address: lower, reason: "complaint", lastEventAt: new Date() });
    await recordAudit(
      db,
      { actor: "system:test", ip: null },
      { orgId: org.orgId, action: "test.named_subject", metadata: { address: lower } },
    );
    const [file] = await db.select().from(attachments).where(eq(attachments.messageId, sent.body.id));
    expect(file).toBeDefined();
    expect(await everythingReadable(org)).toContain(lower);
    await flushRequestLog();
    expect(
      await db.select().from(requestLogs).where(eq(requestLogs.orgId, org.orgId)),
      "the send naming the subject is in the request log before the erasure",
    ).not.toHaveLength(0);

    const req = await call("POST", "/v1/compliance/erasures", { key: org.secret, body: { address: subject } });
    expect(req.status).toBe(202);
    expect(req.body.job).toMatchObject({
      object: "compliance_job",
      kind: "erasure",
      status: "pending",
      subject: { address: lower },
    });
    const job = await completed(org, "erasures", req.body.job.id);
    await runJob(db, job.id); // a second run (a retried workflow) changes nothing
    expect(job.subject).toEqual({ address: null, addressSha256: sha256Hex(lower), contactId: null, inboxId: null });
    expect(job.counts).toMatchObject({ messages: 1, attachments: 1, contactHandles: 1, suppressions: 1 });
    expect(job.counts.auditRows).toBeGreaterThanOrEqual(1);

    // Nothing of the subject anywhere: lists, events, contacts, audit, the export, the job itself.
    const text = await everythingReadable(org, [`/v1/compliance/erasures/${job.id}`]);
    expect(text).not.toContain(lower);
    expect(text).not.toContain("private matter");
    expect((await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).status).toBe(404);
    expect((await call("GET", `/v1/attachments/${file?.id}/content`, { key: org.secret })).status).toBe(404);
    expect(await storage().head(file?.storageKey ?? "")).toBeNull();
    const stored = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.orgId, org.orgId));
    expect(JSON.stringify(stored).toLowerCase()).not.toContain(lower);
    // The API request log kept the send and the contact's creation naming the subject: both gone, the control's send stays.
    const loggedIds = [sent, contact, kept].map((r) => r.headers.get("x-request-id") ?? "");
    const logged = await db
      .select({ requestId: requestLogs.requestId })
      .from(requestLogs)
      .where(and(eq(requestLogs.orgId, org.orgId), inArray(requestLogs.requestId, loggedIds)));
    expect(logged.map((r) => r.requestId)).toEqual([loggedIds[2]]);
    expect(job.counts.requestLogs).toBeGreaterThanOrEqual(2);
    // The rest stays.
    expect((await call("GET", `/v1/messages/${kept.body.id}`, { key: org.secret })).status).toBe(200);
    expect(
      (await call("GET", `/v1/contacts/${contact.body.contact.id}`, { key: org.secret })).body.contact.handles,
    ).toEqual([]);

    // The certificate: signed, the job's chain positions, the erased rows' positions.
    const cert = job.certificate;
    expect(cert).toMatchObject({
      type: "svc.deletion_certificate.v1",
      kind: "erasure",
      userId: org.orgId,
      jobId: job.id,
      subject: { addressSha256: sha256Hex(lower) },
      alg: "EdDSA",
    });
    expect(verifyArtifact(cert, await jwks())).toMatchObject({ valid: true });
    expect(verifyArtifact({ ...cert, counts: { messages: 0 } }, await jwks())).toMatchObject({
      valid: false,
      reason: "bad_signature",
    });
    expect(cert.completedChainSeq).toBeGreaterThan(cert.requestedChainSeq);
    expect(cert.erasedAuditRows.length).toBe(job.counts.auditRows);

    // The export has a gap; the certificate explains it.
    const pages = [(await call("GET", "/v1/audit-logs/export", { key: org.secret })).body];
    const plain = verifyAuditExport(pages, { jwks: await jwks(), requireExplainedGaps: true });
    expect(plain.ok).toBe(false);
    expect(plain.gaps.length).toBeGreaterThanOrEqual(1);
    const certified = verifyAuditExport(pages, {
      jwks: await jwks(),
      certificates: [cert],
      requireExplainedGaps: true,
    });
    expect(certified.problems).toEqual([]);
    expect(certified.gaps.every((g) => g.explained)).toBe(true);

    const done = (await call("GET", "/v1/events?type=compliance.erasure.completed", { key: org.secret })).body.data;
    expect(done).toHaveLength(1);
    expect(done[0].data).toMatchObject({ jobId: job.id, kind: "erasure" });
  }, 120_000);

  test("by contact: the contact, its handles and its messages go", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const a = `a-${tag()}@example.com`;
    const b = `b-${tag()}@example.com`;
    const contact = (
      await call("POST", "/v1/contacts", {
        key: org.secret,
        body: {
          displayName: "Two Handles",
          handles: [
            { channel: "email", value: a, isPrimary: true },
            { channel: "a2a", value: b },
          ],
        },
      })
    ).body.contact;
    const m = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: b, text: "hello" },
    });
    expect(m.status).toBe(200);
    const req = await call("POST", "/v1/compliance/erasures", { key: org.secret, body: { contactId: contact.id } });
    expect(req.status).toBe(202);
    const job = await completed(org, "erasures", req.body.job.id);
    expect(job.counts).toMatchObject({ messages: 1, contactHandles: 2, contacts: 1 });
    expect((await call("GET", `/v1/contacts/${contact.id}`, { key: org.secret })).status).toBe(404);
    const text = await everythingReadable(org);
    expect(text).not.toContain(a);
    expect(text).not.toContain(b);
    expect(text).not.toContain("two handles");
  }, 120_000);

  test("requests are checked: exactly one of address or contactId; another organization's contact or inbox is 404", async () => {
    const org = await newOrg();
    const other = await newOrg();
    const theirs = (await call("POST", "/v1/contacts", { key: other.secret, body: { displayName: "Theirs" } })).body
      .contact;
    const theirInbox = await newInbox(other);
    const cases: [string, unknown, number][] = [
      ["/v1/compliance/erasures", {}, 400],
      ["/v1/compliance/erasures", { address: "x@example.com", contactId: theirs.id }, 400],
      ["/v1/compliance/erasures", { address: "not-an-address" }, 400],
      ["/v1/compliance/erasures", { contactId: theirs.id }, 404],
      ["/v1/compliance/purges", { inboxId: theirInbox.id }, 404],
    ];
    for (const [p, body, status] of cases)
      expect((await call("POST", p, { key: org.secret, body })).status, JSON.stringify(body)).toBe(status);
    const job = (await call("POST", "/v1/compliance/erasures", { key: org.secret, body: { address: "x@example.com" } }))
      .body.job;
    expect((await call("GET", `/v1/compliance/purges/${job.id}`, { key: org.secret })).status).toBe(404);
    expect((await call("GET", `/v1/compliance/erasures/${job.id}`, { key: other.secret })).status).toBe(404);
  });
});

describe("inbox purge", () => {
  test("every message and thread of the inbox goes, with the event data; the inbox stays; a signed certificate", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const other = await newInbox(org);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await call("POST", "/v1/messages", {
            key: org.secret,
            body: { inboxId: inbox.id, to: `p${i}-${tag()}@example.com`, subject: `Purge me ${i}`, text: "x" },
          })
        ).status,
      ).toBe(200);
    const elsewhere = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: other.id, to: `stay-${tag()}@example.com`, subject: "Elsewhere", text: "y" },
    });
    const req = await call("POST", "/v1/compliance/purges", { key: org.secret, body: { inboxId: inbox.id } });
    expect(req.status).toBe(202);
    const job = await completed(org, "purges", req.body.job.id);
    expect(job.counts).toMatchObject({ messages: 3 });
    expect(job.certificate).toMatchObject({ kind: "purge", subject: { inboxId: inbox.id } });
    expect(verifyArtifact(job.certificate, await jwks()).valid).toBe(true);
    expect((await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret })).body.messages).toEqual([]);
    expect((await call("GET", `/v1/threads?inboxId=${inbox.id}`, { key: org.secret })).body.threads).toEqual([]);
    expect((await call("GET", `/v1/inboxes/${inbox.id}`, { key: org.secret })).status).toBe(200);
    expect(await everythingReadable(org)).not.toContain("purge me");
    expect((await call("GET", `/v1/messages/${elsewhere.body.id}`, { key: org.secret })).status).toBe(200);
  }, 120_000);
});
