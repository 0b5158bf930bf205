import fs from "node:fs/promises";
import path from "node:path";
import { and, arrayOverlaps, eq, inArray, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import {
  attachments,
  auditLogs,
  complianceJobs,
  contactHandles,
  contacts,
  idempotencyKeys,
  ledgerEvents,
  messages,
  requestLogs,
  suppressions,
  threads,
} from "@/db/schema";
import { env, publicBaseUrl } from "@/lib/env";
import { appendEvent } from "@/lib/events/ledger";
import { storage } from "@/lib/providers/storage";
import { flushRequestLog } from "@/lib/request-logs/recorder";
import { signArtifact } from "@/lib/trust/keys";
import { appendChainedAudit } from "./chain";
import { CERTIFICATE_TYPE, type JobRow } from "./jobs";

// The compliance-job workflow's steps over a job that jobs.ts requested: what an erasure or a purge
// deletes, one step per kind of data, and the signed end of the job (see jobs.ts).

async function loadJob(db: DbOrTx, jobId: string): Promise<JobRow | null> {
  const [row] = await db.select().from(complianceJobs).where(eq(complianceJobs.id, jobId));
  return row ?? null;
}

const addressesOf = (job: JobRow): string[] =>
  job.subject.address ? [job.subject.address] : (job.subject.addresses ?? []);

async function addCounts(tx: DbOrTx, jobId: string, counts: Record<string, number>): Promise<void> {
  const pairs = Object.entries(counts);
  if (pairs.length === 0) return;
  let expr = sql`${complianceJobs.counts}`;
  for (const [k, n] of pairs)
    expr = sql`jsonb_set(${expr}, ${`{${k}}`}::text[], to_jsonb(coalesce((${complianceJobs.counts}->>${k})::int, 0) + ${n}))`;
  await tx.update(complianceJobs).set({ counts: expr }).where(eq(complianceJobs.id, jobId));
}

/** Step 1: the subject's messages (whole), their stored bytes, ledger events, emptied threads. */
async function eraseMessages(db: Db, job: JobRow): Promise<void> {
  const addrs = addressesOf(job);
  const where =
    job.kind === "purge"
      ? and(eq(messages.orgId, job.orgId), eq(messages.inboxId, job.subject.inboxId ?? ""))
      : addrs.length === 0
        ? undefined
        : and(
            eq(messages.orgId, job.orgId),
            or(
              inArray(sql`lower(${messages.fromAddress})`, addrs),
              arrayOverlaps(messages.to, addrs),
              arrayOverlaps(messages.cc, addrs),
              arrayOverlaps(messages.bcc, addrs),
            ),
          );
  if (!where) return;
  for (;;) {
    const batch = await db
      .select({ id: messages.id, threadId: messages.threadId, providerMessageId: messages.providerMessageId })
      .from(messages)
      .where(where)
      .limit(500);
    if (batch.length === 0) break;
    const ids = batch.map((m) => m.id);
    const files = await db
      .select({ storageKey: attachments.storageKey })
      .from(attachments)
      .where(inArray(attachments.messageId, ids));
    // Bytes first: a crash after this re-runs the step, which finds the rows and deletes again (a missing key is fine).
    for (const f of files) await storage().delete(f.storageKey);
    for (const m of batch)
      if (m.providerMessageId) await fs.rm(path.join(env.OUTBOX_DIR, `${m.providerMessageId}.eml`), { force: true });
    await db.transaction(async (tx) => {
      await tx
        .update(ledgerEvents)
        .set({ data: { erased: true } })
        .where(
          and(
            eq(ledgerEvents.orgId, job.orgId),
            or(inArray(ledgerEvents.messageId, ids), inArray(ledgerEvents.outboundMessageId, ids)),
          ),
        );
      await tx.delete(messages).where(inArray(messages.id, ids));
      const threadIds = [...new Set(batch.map((m) => m.threadId).filter((t): t is string => Boolean(t)))];
      if (threadIds.length > 0) {
        await tx
          .delete(threads)
          .where(
            and(
              inArray(threads.id, threadIds),
              sql`not exists (select 1 from messages m where m.thread_id = ${threads.id})`,
            ),
          );
        await tx
          .update(threads)
          .set({ messageCount: sql`(select count(*) from messages m where m.thread_id = ${threads.id})` })
          .where(inArray(threads.id, threadIds));
      }
      await addCounts(tx, job.id, { messages: batch.length, attachments: files.length });
    });
  }
  if (job.kind === "purge") {
    await db.transaction(async (tx) => {
      await tx
        .update(ledgerEvents)
        .set({ data: { erased: true } })
        .where(
          and(eq(ledgerEvents.orgId, job.orgId), eq(ledgerEvents.partitionKey, `inbox:${job.subject.inboxId ?? ""}`)),
        );
      const emptied = await tx
        .delete(threads)
        .where(and(eq(threads.orgId, job.orgId), eq(threads.inboxId, job.subject.inboxId ?? "")))
        .returning({ id: threads.id });
      await addCounts(tx, job.id, { threads: emptied.length });
    });
  }
}

/** Step 2: the address's handles (a contact erasure: the contact), its suppression, stored responses and API request logs naming it. */
async function eraseHandles(db: Db, job: JobRow): Promise<void> {
  const addrs = addressesOf(job);
  if (job.kind !== "erasure") return;
  await flushRequestLog(); // requests still buffered are in the table before it is searched
  await db.transaction(async (tx) => {
    const handles = addrs.length
      ? await tx
          .delete(contactHandles)
          .where(and(eq(contactHandles.orgId, job.orgId), inArray(contactHandles.value, addrs)))
          .returning({ id: contactHandles.id })
      : [];
    const removedContacts = job.subject.contactId
      ? await tx
          .delete(contacts)
          .where(and(eq(contacts.orgId, job.orgId), eq(contacts.id, job.subject.contactId)))
          .returning({ id: contacts.id })
      : [];
    const supp = addrs.length
      ? await tx
          .delete(suppressions)
          .where(and(eq(suppressions.orgId, job.orgId), inArray(suppressions.address, addrs)))
          .returning({ a: suppressions.address })
      : [];
    let responses = 0;
    for (const a of addrs) {
      const gone = await tx
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.orgId, job.orgId),
            sql`lower(${idempotencyKeys.responseBody}::text) like ${`%${a.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`,
          ),
        )
        .returning({ k: idempotencyKeys.key });
      responses += gone.length;
    }
    const logged = await eraseLoggedRequests(tx, job.orgId, addrs);
    await addCounts(tx, job.id, {
      contactHandles: handles.length,
      contacts: removedContacts.length,
      suppressions: supp.length,
      storedResponses: responses,
      requestLogs: logged,
    });
  });
}

/** The organization's API request log rows whose stored bodies name one of `addrs`; the number removed. */
async function eraseLoggedRequests(tx: DbOrTx, orgId: string, addrs: string[]): Promise<number> {
  let removed = 0;
  for (const a of addrs) {
    const like = `%${a.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const gone = await tx
      .delete(requestLogs)
      .where(
        and(
          eq(requestLogs.orgId, orgId),
          or(sql`lower(${requestLogs.requestBody}) like ${like}`, sql`lower(${requestLogs.responseBody}) like ${like}`),
        ),
      )
      .returning({ id: requestLogs.id });
    removed += gone.length;
  }
  return removed;
}

/** Step 3: audit rows naming the subject; their positions are kept for the certificate. */
async function eraseAuditRows(db: Db, job: JobRow): Promise<void> {
  if (job.kind !== "erasure") return;
  const addrs = addressesOf(job);
  const conds = addrs.map(
    (a) => sql`lower(${auditLogs.metadata}::text) like ${`%${a.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`,
  );
  if (job.subject.contactId)
    conds.push(
      sql`${auditLogs.resourceId} = ${job.subject.contactId}`,
      sql`${auditLogs.metadata}::text like ${`%${job.subject.contactId}%`}`,
    );
  if (conds.length === 0) return;
  await db.transaction(async (tx) => {
    const rows = await tx
      .delete(auditLogs)
      .where(and(eq(auditLogs.orgId, job.orgId), or(...conds), sql`${auditLogs.resourceId} is distinct from ${job.id}`))
      .returning({ chainSeq: auditLogs.chainSeq, prevHash: auditLogs.prevHash, rowHash: auditLogs.rowHash });
    const positions = rows
      .filter((r) => r.chainSeq !== null)
      .map((r) => ({ chainSeq: r.chainSeq ?? 0, prevHash: r.prevHash ?? "", rowHash: r.rowHash ?? "" }));
    if (positions.length > 0) {
      await tx
        .update(complianceJobs)
        .set({ erasedAuditRows: sql`${complianceJobs.erasedAuditRows} || ${JSON.stringify(positions)}::jsonb` })
        .where(eq(complianceJobs.id, job.id));
    }
    await addCounts(tx, job.id, { auditRows: rows.length });
  });
}

export const JOB_STEPS = { messages: eraseMessages, handles: eraseHandles, audit: eraseAuditRows } as const;

/** Runs one step of a job (the workflow calls each in `step.run`); nothing when the job is done. */
export async function runJobStep(db: Db, jobId: string, step: keyof typeof JOB_STEPS): Promise<void> {
  const job = await loadJob(db, jobId);
  if (!job || job.status === "completed") return;
  if (job.status === "pending")
    await db
      .update(complianceJobs)
      .set({ status: "running" })
      .where(and(eq(complianceJobs.id, jobId), eq(complianceJobs.status, "pending")));
  await JOB_STEPS[step](db, job);
}

/**
 * The last step: one transaction writes the completion's chained audit row, signs the deletion
 * certificate (what was erased as a hash, counts, times, the job's audit positions, the erased
 * rows' positions), stores it with the subject reduced to its hash, and appends
 * `compliance.erasure.completed`. Harmless to run again: a completed job is left as it is.
 */
export async function finishJob(db: Db, jobId: string): Promise<void> {
  // Requests logged while the job ran (its own status reads show the address until it completes).
  const pending = await loadJob(db, jobId);
  if (pending?.kind === "erasure" && pending.status !== "completed") {
    await flushRequestLog();
    const late = await eraseLoggedRequests(db, pending.orgId, addressesOf(pending));
    if (late > 0) await addCounts(db, jobId, { requestLogs: late });
  }
  await db.transaction(async (tx) => {
    const [job] = await tx.select().from(complianceJobs).where(eq(complianceJobs.id, jobId)).for("update");
    if (!job || job.status === "completed") return;
    const completedAt = new Date();
    const audit = await appendChainedAudit(tx, {
      orgId: job.orgId,
      action: `compliance.${job.kind}.completed`,
      actor: "system:compliance",
      resourceType: "compliance_job",
      resourceId: job.id,
      metadata: { counts: job.counts },
    });
    const subject =
      job.kind === "purge"
        ? { inboxId: job.subject.inboxId ?? null }
        : { addressSha256: job.subject.addressSha256 ?? null, contactId: job.subject.contactId ?? null };
    const certificate = await signArtifact(tx, {
      type: CERTIFICATE_TYPE,
      issuer: publicBaseUrl(),
      userId: job.orgId,
      jobId: job.id,
      kind: job.kind,
      subject,
      counts: job.counts,
      requestedAt: job.createdAt.toISOString(),
      completedAt: completedAt.toISOString(),
      requestedChainSeq: job.requestedChainSeq,
      completedChainSeq: audit.chainSeq,
      erasedAuditRows: [...job.erasedAuditRows].sort((a, b) => a.chainSeq - b.chainSeq),
    });
    await tx
      .update(complianceJobs)
      .set({ status: "completed", certificate, completedAt, subject: { ...subject }, error: null })
      .where(eq(complianceJobs.id, job.id));
    await appendEvent(tx, {
      orgId: job.orgId,
      type: "compliance.erasure.completed",
      partitionKey: "compliance",
      data: { jobId: job.id, kind: job.kind, counts: job.counts, certificateKid: certificate.kid },
    });
  });
}

/** After the last retry: the job is `failed` with the reason (what was removed stays removed). */
export async function failJob(db: Db, jobId: string, reason: string): Promise<void> {
  await db
    .update(complianceJobs)
    .set({ status: "failed", error: reason.slice(0, 500) })
    .where(and(eq(complianceJobs.id, jobId), inArray(complianceJobs.status, ["pending", "running"])));
}

/** The whole job in order (tests, and the workflow's steps one by one). */
export async function runJob(db: Db, jobId: string): Promise<void> {
  for (const step of Object.keys(JOB_STEPS) as (keyof typeof JOB_STEPS)[]) await runJobStep(db, jobId, step);
  await finishJob(db, jobId);
}
