import { and, asc, eq, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains, inboxes } from "@/db/schema";
import { ApiError, notFound, notPermitted } from "@/lib/core/errors";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import type { Principal } from "@/lib/auth/principal";
import { env, mailHost } from "@/lib/env";
import { appendEvent } from "@/lib/events/ledger";
import { type DkimKey, dkimRecordValue, generateDkimKey, sharedDomainKey } from "./dkim";
import { mxHosts, txtRecords } from "./dns";

type Row = typeof domains.$inferSelect;
type Purpose = "mx" | "spf" | "dkim" | "dmarc";
type RecordStatus = "pending" | "verified" | "failed";

export interface DnsRecord {
  type: "MX" | "TXT";
  name: string;
  value: string;
  purpose: Purpose;
  status: RecordStatus;
}

export interface Domain {
  object: "domain";
  id: string;
  name: string;
  status: Row["status"];
  isShared: boolean;
  records: DnsRecord[];
  createdAt: string;
  verifiedAt: string | null;
}

const HOSTNAME = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** A domain name as stored (lower case, no trailing dot), or a 400 `invalid_domain`. */
export function normalizeDomainName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, "");
  if (!HOSTNAME.test(name)) throw new ApiError("invalid_domain", `"${raw}" is not a valid domain name.`, "name");
  if (name === env.SHARED_DOMAIN || name.endsWith(`.${env.SHARED_DOMAIN}`)) {
    throw new ApiError("invalid_domain", `${env.SHARED_DOMAIN} is the shared domain; every organization already has it.`, "name");
  }
  return name;
}

export const spfValue = () => `v=spf1 a:${mailHost()} ~all`;
export const dmarcValue = () => "v=DMARC1; p=none";

/** The records to publish for a domain (what `verify` checks). */
function expectedRecords(name: string, key: Pick<DkimKey, "selector" | "publicKey">): Omit<DnsRecord, "status">[] {
  return [
    { type: "MX", name, value: `10 ${mailHost()}`, purpose: "mx" },
    { type: "TXT", name, value: spfValue(), purpose: "spf" },
    { type: "TXT", name: `${key.selector}._domainkey.${name}`, value: dkimRecordValue(key.publicKey), purpose: "dkim" },
    { type: "TXT", name: `_dmarc.${name}`, value: dmarcValue(), purpose: "dmarc" },
  ];
}

async function keyOf(db: DbOrTx, row: Row): Promise<DkimKey> {
  if (row.isShared) return sharedDomainKey(db);
  if (!row.dkimSelector || !row.dkimPrivateKey || !row.dkimPublicKey) throw new Error(`domain ${row.id} has no DKIM key`);
  return { selector: row.dkimSelector, privateKey: row.dkimPrivateKey, publicKey: row.dkimPublicKey };
}

async function toDomain(db: DbOrTx, row: Row): Promise<Domain> {
  const key = await keyOf(db, row);
  const fallback: RecordStatus = row.status === "verified" ? "verified" : "pending";
  return {
    object: "domain",
    id: row.id,
    name: row.name,
    status: row.status,
    isShared: row.isShared,
    records: expectedRecords(row.name, key).map((r) => ({ ...r, status: row.isShared ? "verified" : (row.recordStatus?.[r.purpose] ?? fallback) })),
    createdAt: row.createdAt.toISOString(),
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
  };
}

export async function findDomain(db: DbOrTx, principal: Principal, domainId: string): Promise<Row> {
  const [row] = await db
    .select()
    .from(domains)
    .where(and(eq(domains.orgId, principal.orgId), eq(domains.id, domainId)));
  if (!row) throw notFound("domain", "domainId");
  return row;
}

export async function listDomains(db: DbOrTx, principal: Principal): Promise<{ domains: Domain[] }> {
  const rows = await db.select().from(domains).where(eq(domains.orgId, principal.orgId)).orderBy(asc(domains.createdAt), asc(domains.id));
  return { domains: await Promise.all(rows.map((r) => toDomain(db, r))) };
}

export async function getDomain(db: DbOrTx, principal: Principal, domainId: string): Promise<{ domain: Domain }> {
  return { domain: await toDomain(db, await findDomain(db, principal, domainId)) };
}

/** Adds a domain (`pending`) with a new DKIM key and returns the records to publish. */
export async function createDomain(db: DbOrTx, principal: Principal, input: { name: string }): Promise<{ domain: Domain }> {
  const name = normalizeDomainName(input.name);
  const key = generateDkimKey();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(domains)
      .values({ orgId: principal.orgId, name, status: "pending", dkimSelector: key.selector, dkimPrivateKey: key.privateKey, dkimPublicKey: key.publicKey })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ApiError("conflict", `The domain ${name} is already added to this organization.`, "name");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "domain.created", resourceType: "domain", resourceId: row.id, metadata: { name } });
    return { domain: await toDomain(tx, row) };
  });
}

function refuseShared(row: Row): void {
  if (row.isShared) throw notPermitted("The shared domain is read-only.", "domainId");
}

/**
 * Rechecks the domain's records with real DNS lookups. All four published: `pending` → `verified`
 * (emitting `domain.verified`). A verified domain stays verified; the record statuses show what
 * the latest check found.
 */
export async function verifyDomain(db: DbOrTx, principal: Principal, domainId: string): Promise<{ domain: Domain }> {
  const row = await findDomain(db, principal, domainId);
  if (row.isShared) return { domain: await toDomain(db, row) };
  const key = await keyOf(db, row);
  const expected = expectedRecords(row.name, key);
  const dkim = expected.find((r) => r.purpose === "dkim");
  const [mx, apexTxt, dkimTxt, dmarcTxt] = await Promise.all([
    mxHosts(row.name),
    txtRecords(row.name),
    txtRecords(dkim?.name ?? ""),
    txtRecords(`_dmarc.${row.name}`),
  ]);
  const dkimP = /p=([^;\s]+)/.exec(dkim?.value ?? "")?.[1];
  const found: Record<Purpose, boolean> = {
    mx: mx.includes(mailHost()),
    spf: apexTxt.some((t) => t.startsWith("v=spf1") && t.includes(`a:${mailHost()}`)),
    dkim: dkimTxt.some((t) => t.replace(/\s+/g, "").includes(`p=${dkimP}`)),
    dmarc: dmarcTxt.some((t) => t.startsWith("v=DMARC1")),
  };
  const recordStatus = Object.fromEntries(Object.entries(found).map(([k, ok]) => [k, ok ? "verified" : "failed"])) as Record<Purpose, RecordStatus>;
  const allFound = Object.values(found).every(Boolean);
  return db.transaction(async (tx) => {
    const becameVerified = allFound && row.status !== "verified";
    const [updated] = await tx
      .update(domains)
      .set({
        recordStatus,
        lastCheckedAt: new Date(),
        ...(becameVerified ? { status: "verified" as const, verifiedAt: new Date() } : {}),
      })
      .where(eq(domains.id, row.id))
      .returning();
    if (!updated) throw notFound("domain", "domainId");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "domain.verification_checked", resourceType: "domain", resourceId: row.id, metadata: { found } });
    if (becameVerified) {
      await appendEvent(tx, {
        orgId: principal.orgId,
        type: "domain.verified",
        partitionKey: `domain:${row.id}`,
        data: { domainId: row.id, name: row.name, verifiedAt: updated.verifiedAt?.toISOString() ?? null },
      });
    }
    return { domain: await toDomain(tx, updated) };
  });
}

/** Rotates the DKIM key (new selector to publish). The shared domain is read-only. */
export async function updateDomain(db: DbOrTx, principal: Principal, domainId: string, input: { rotateDkimKey?: boolean }): Promise<{ domain: Domain }> {
  const row = await findDomain(db, principal, domainId);
  refuseShared(row);
  if (!input.rotateDkimKey) {
    noAuditNeeded("nothing to change");
    return { domain: await toDomain(db, row) };
  }
  const key = generateDkimKey();
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(domains)
      .set({ dkimSelector: key.selector, dkimPrivateKey: key.privateKey, dkimPublicKey: key.publicKey, recordStatus: { ...row.recordStatus, dkim: "pending" } })
      .where(eq(domains.id, row.id))
      .returning();
    if (!updated) throw notFound("domain", "domainId");
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "domain.dkim_rotated", resourceType: "domain", resourceId: row.id, metadata: { selector: key.selector } });
    return { domain: await toDomain(tx, updated) };
  });
}

/** Deletes a domain that no inbox uses any more. The shared domain is read-only. */
export async function deleteDomain(db: DbOrTx, principal: Principal, domainId: string): Promise<{ deleted: true; id: string }> {
  const row = await findDomain(db, principal, domainId);
  refuseShared(row);
  return db.transaction(async (tx) => {
    const [inUse] = await tx
      .select({ id: inboxes.id })
      .from(inboxes)
      .where(and(eq(inboxes.domainId, row.id), ne(inboxes.status, "deleted")))
      .limit(1);
    if (inUse) throw new ApiError("conflict", "Inboxes still use this domain; delete them first.", "domainId");
    await tx.delete(inboxes).where(eq(inboxes.domainId, row.id));
    await tx.delete(domains).where(eq(domains.id, row.id));
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "domain.deleted", resourceType: "domain", resourceId: row.id, metadata: { name: row.name } });
    return { deleted: true as const, id: row.id };
  });
}
