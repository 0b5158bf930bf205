import { and, desc, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { complianceJobs, contactHandles, contacts, inboxes } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { sha256Hex } from "@/lib/trust/jcs";
import { publishWorkflowEvents } from "@/lib/workflows/publish";
import { complianceJobRequested } from "./workflow-events";

/**
 * Erasure (`POST /v1/compliance/erasures`, by address or contact) and inbox purge
 * (`POST /v1/compliance/purges`): durable jobs. The request stores the job and publishes
 * `svc/compliance.job.requested` in one audited transaction; the compliance-job workflow
 * (lib/compliance/functions/compliance-job.ts) runs `JOB_STEPS` (job-steps.ts) one `step.run` each — every step is a
 * delete by subject, so a retried or resumed run only finds less to do — and `finishJob` ends it:
 * a chained audit row, the signed deletion certificate, `compliance.erasure.completed`, one
 * transaction. What an erasure removes in the organization: messages from or to the address
 * (whole messages: bodies, attachments and their stored bytes, inbound copies, the embedded
 * transport's `.eml`), their threads when emptied, the ledger events of those messages (`data`
 * replaced by `{erased: true}`), stored idempotent responses that name the address, the address's
 * contact handles (a contact erasure deletes the contact), its complaint suppression, and audit
 * rows that name the address or the erased contact and messages (their chain positions go into
 * the certificate, so the verifier links across the gap). A purge removes every message and
 * thread of the inbox the same way and keeps the inbox.
 */

export const CERTIFICATE_TYPE = "svc.deletion_certificate.v1";

export type JobRow = typeof complianceJobs.$inferSelect;

type Kind = JobRow["kind"];

export function toJob(row: JobRow) {
  return {
    object: "compliance_job" as const,
    id: row.id,
    kind: row.kind,
    status: row.status,
    subject: {
      address: row.subject.address ?? null,
      addressSha256: row.subject.addressSha256 ?? null,
      contactId: row.subject.contactId ?? null,
      inboxId: row.subject.inboxId ?? null,
    },
    counts: row.counts,
    // Stored as signed by finishJob (the response schema checks its shape).
    certificate: (row.certificate ?? null) as
      | (Record<string, unknown> & {
          type: typeof CERTIFICATE_TYPE;
          alg: "EdDSA" | null;
          kid: string | null;
          signature: string | null;
        })
      | null,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

const hashAddresses = (addresses: string[]) => sha256Hex([...addresses].sort().join("\n"));

async function requestJob(
  db: Db,
  principal: Principal,
  kind: Kind,
  subject: JobRow["subject"],
  auditMeta: Record<string, unknown>,
) {
  const { row, afterCommit } = await db.transaction(async (tx) => {
    const [job] = await tx
      .insert(complianceJobs)
      .values({ orgId: principal.orgId, kind, subject, requestedBy: principal.actor })
      .returning();
    if (!job) throw new Error("compliance job insert returned nothing");
    const audit = await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: `compliance.${kind}.requested`,
      resourceType: "compliance_job",
      resourceId: job.id,
      metadata: auditMeta,
    });
    await tx.update(complianceJobs).set({ requestedChainSeq: audit.chainSeq }).where(eq(complianceJobs.id, job.id));
    const after = await publishWorkflowEvents(tx, [
      complianceJobRequested.create({ jobId: job.id, orgId: principal.orgId }),
    ]);
    return { row: { ...job, requestedChainSeq: audit.chainSeq }, afterCommit: after };
  });
  await afterCommit();
  return { job: toJob(row) };
}

/** `POST /v1/compliance/erasures`: by `address` or by `contactId` (exactly one). */
export async function requestErasure(db: Db, principal: Principal, input: { address?: string; contactId?: string }) {
  if (Boolean(input.address) === Boolean(input.contactId))
    throw invalidRequest("Give exactly one of address or contactId.", input.address ? "contactId" : "address");
  if (input.contactId) {
    const [contact] = await db
      .select({ id: contacts.id, kind: contacts.kind })
      .from(contacts)
      .where(and(eq(contacts.orgId, principal.orgId), eq(contacts.id, input.contactId.toLowerCase())));
    if (!contact) throw notFound("contact", "contactId");
    if (contact.kind === "self") throw invalidRequest("The organization's own contact cannot be erased.", "contactId");
    const handles = await db
      .select({ value: contactHandles.value })
      .from(contactHandles)
      .where(eq(contactHandles.contactId, contact.id));
    const addresses = [...new Set(handles.map((h) => h.value.toLowerCase()))];
    return requestJob(
      db,
      principal,
      "erasure",
      { contactId: contact.id, addresses, addressSha256: hashAddresses(addresses) },
      { contactId: contact.id },
    );
  }
  const address = (input.address ?? "").toLowerCase();
  const addressSha256 = hashAddresses([address]);
  return requestJob(db, principal, "erasure", { address, addressSha256 }, { addressSha256 });
}

/** `POST /v1/compliance/purges`: every message and thread of one inbox. */
export async function requestPurge(db: Db, principal: Principal, input: { inboxId: string }) {
  const [inbox] = await db
    .select({ id: inboxes.id })
    .from(inboxes)
    .where(and(eq(inboxes.orgId, principal.orgId), eq(inboxes.id, input.inboxId.toLowerCase())));
  if (!inbox) throw notFound("inbox", "inboxId");
  return requestJob(db, principal, "purge", { inboxId: inbox.id }, { inboxId: inbox.id });
}

export async function getJob(db: DbOrTx, principal: Principal, kind: Kind, jobId: string) {
  const [row] = await db
    .select()
    .from(complianceJobs)
    .where(and(eq(complianceJobs.orgId, principal.orgId), eq(complianceJobs.kind, kind), eq(complianceJobs.id, jobId)));
  if (!row) throw notFound(kind === "erasure" ? "erasure job" : "purge job", "jobId");
  return { job: toJob(row) };
}

/** The organization's erasure and purge jobs, newest first (the console's list; the API reads one job by id). */
export async function listJobs(db: DbOrTx, principal: Principal, limit: number) {
  const rows = await db
    .select()
    .from(complianceJobs)
    .where(eq(complianceJobs.orgId, principal.orgId))
    .orderBy(desc(complianceJobs.createdAt), desc(complianceJobs.id))
    .limit(limit);
  return rows.map(toJob);
}
