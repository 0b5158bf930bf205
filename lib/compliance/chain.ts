import { and, asc, eq, is, isNull, sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { DbOrTx } from "@/db";
import { uuidv7 } from "@/db/ids";
import { auditChainHeads, auditLogs } from "@/db/schema";
import { jsonSafe } from "@/lib/trust/jcs";
import { type ChainRow, rowHashOf } from "./chain-format";

/**
 * Writing the audit chain. Each organization's rows form one hash chain (`chain-format.ts`). A
 * writer, in the transaction that makes the change it records:
 *   1. upserts the organization's head row (`audit_chain_heads`), which takes its row lock — a
 *      concurrent writer of the same organization now waits for this transaction to end;
 *   2. reads the head's last position and hash, stamps the row's time (never earlier than the
 *      previous row's, so time windows and chain order agree), computes `rowHash`, inserts the row;
 *   3. moves the head to the new row.
 * The next writer reads the new head only after this transaction commits, so two rows never claim
 * one predecessor (no fork), and a unique index on (org, chainSeq) backs that up. A rollback undoes
 * the head move with the row: positions stay contiguous. Organizations never wait on each other.
 * Keep audited transactions short after the audit write: the head stays locked until commit.
 */

export type AuditRow = typeof auditLogs.$inferSelect;

export interface ChainedAuditEntry {
  orgId: string;
  action: string;
  actor: string;
  ip?: string | null;
  resourceType?: string | null;
  resourceId?: string | null;
  metadata?: Record<string, unknown> | null;
  agentId?: string | null;
}

/** The chain form of a stored row (exactly what is hashed and exported, without the hashes). */
export function chainRowOf(row: AuditRow): ChainRow {
  if (row.chainSeq === null) throw new Error(`audit row ${row.id} is not chained`);
  return {
    id: row.id,
    userId: row.orgId,
    action: row.action,
    createdAt: row.createdAt.toISOString(),
    chainSeq: row.chainSeq,
    resourceType: row.resourceType,
    resourceId: row.resourceId,
    actor: row.actor,
    ip: row.ip,
    metadata: row.metadata,
    agentId: row.agentId,
  };
}

interface Head {
  lastSeq: number;
  lastHash: string;
  lastCreatedAt: Date | null;
}

/** Locks and returns the organization's chain head, linking rows written before chaining first. */
async function lockHead(tx: DbOrTx, orgId: string): Promise<Head> {
  const [head] = await tx
    .insert(auditChainHeads)
    .values({ orgId, lastSeq: 0, lastHash: "" })
    .onConflictDoUpdate({ target: auditChainHeads.orgId, set: { lastSeq: sql`${auditChainHeads.lastSeq}` } })
    .returning();
  if (!head) throw new Error("audit chain head upsert returned nothing");
  if (head.lastSeq > 0) return head;
  return linkUnchained(tx, orgId, head);
}

/**
 * Rows written before the organization's first chained write (before chaining existed) join the
 * chain first, in the order they were written, keeping their times.
 */
async function linkUnchained(tx: DbOrTx, orgId: string, head: Head): Promise<Head> {
  const rows = await tx
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.orgId, orgId), isNull(auditLogs.chainSeq)))
    .orderBy(asc(auditLogs.createdAt), asc(auditLogs.id));
  let { lastSeq, lastHash, lastCreatedAt } = head;
  for (const row of rows) {
    const chainSeq = lastSeq + 1;
    const linked = { ...row, metadata: jsonSafe(row.metadata), chainSeq };
    const rowHash = rowHashOf(lastHash, chainRowOf(linked));
    await tx
      .update(auditLogs)
      .set({ chainSeq, prevHash: lastHash, rowHash, metadata: linked.metadata })
      .where(eq(auditLogs.id, row.id));
    lastSeq = chainSeq;
    lastHash = rowHash;
    lastCreatedAt = row.createdAt;
  }
  if (rows.length > 0)
    await tx.update(auditChainHeads).set({ lastSeq, lastHash, lastCreatedAt }).where(eq(auditChainHeads.orgId, orgId));
  return { lastSeq, lastHash, lastCreatedAt };
}

/**
 * Appends one chained audit row. Call it with the transaction that makes the change it records;
 * given the database handle instead, it opens a transaction of its own.
 */
export async function appendChainedAudit(db: DbOrTx, entry: ChainedAuditEntry): Promise<AuditRow> {
  if (!is(db, PgTransaction)) return db.transaction((tx) => appendChainedAudit(tx, entry));
  const tx = db;
  const head = await lockHead(tx, entry.orgId);
  const now = new Date();
  const createdAt = head.lastCreatedAt && head.lastCreatedAt > now ? head.lastCreatedAt : now;
  const values = jsonSafe({
    id: uuidv7(),
    orgId: entry.orgId,
    action: entry.action,
    resourceType: entry.resourceType ?? null,
    resourceId: entry.resourceId ?? null,
    actor: entry.actor,
    ip: entry.ip ?? null,
    metadata: entry.metadata ?? null,
    agentId: entry.agentId ?? null,
  });
  const chainSeq = head.lastSeq + 1;
  const row: AuditRow = { ...values, chainSeq, createdAt, prevHash: head.lastHash, rowHash: "" };
  row.rowHash = rowHashOf(head.lastHash, chainRowOf(row));
  const [stored] = await tx.insert(auditLogs).values(row).returning();
  if (!stored) throw new Error("audit insert returned nothing");
  await tx
    .update(auditChainHeads)
    .set({ lastSeq: chainSeq, lastHash: row.rowHash, lastCreatedAt: createdAt })
    .where(eq(auditChainHeads.orgId, entry.orgId));
  return stored;
}

/** The organization's chain head (position and hash), linking rows written before chaining. */
export async function chainHead(db: DbOrTx, orgId: string): Promise<{ chainSeq: number; rowHash: string }> {
  const [current] = await db.select().from(auditChainHeads).where(eq(auditChainHeads.orgId, orgId));
  if (current && current.lastSeq > 0) return { chainSeq: current.lastSeq, rowHash: current.lastHash };
  // No chained row yet: link what there is (takes the head's lock briefly).
  const head = is(db, PgTransaction) ? await lockHead(db, orgId) : await db.transaction((tx) => lockHead(tx, orgId));
  return { chainSeq: head.lastSeq, rowHash: head.lastHash };
}
