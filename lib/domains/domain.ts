import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { domains } from "@/db/schema";
import { ApiError, notFound, notPermitted } from "@/lib/core/errors";
import type { Principal } from "@/lib/auth/principal";
import { env, mailHost } from "@/lib/env";
import { type DkimKey, dkimRecordValue, sharedDomainKey } from "./dkim";

type Row = typeof domains.$inferSelect;

export type Purpose = "mx" | "spf" | "dkim" | "dmarc";

export type RecordStatus = "pending" | "verified" | "failed";

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
    throw new ApiError(
      "invalid_domain",
      `${env.SHARED_DOMAIN} is the shared domain; every organization already has it.`,
      "name",
    );
  }
  return name;
}

export const spfValue = () => `v=spf1 a:${mailHost()} ~all`;

export const dmarcValue = () => "v=DMARC1; p=none";

/** The records to publish for a domain (what `verify` checks). */
export function expectedRecords(
  name: string,
  key: Pick<DkimKey, "selector" | "publicKey">,
): Omit<DnsRecord, "status">[] {
  return [
    { type: "MX", name, value: `10 ${mailHost()}`, purpose: "mx" },
    { type: "TXT", name, value: spfValue(), purpose: "spf" },
    { type: "TXT", name: `${key.selector}._domainkey.${name}`, value: dkimRecordValue(key.publicKey), purpose: "dkim" },
    { type: "TXT", name: `_dmarc.${name}`, value: dmarcValue(), purpose: "dmarc" },
  ];
}

export async function keyOf(db: DbOrTx, row: Row): Promise<DkimKey> {
  if (row.isShared) return sharedDomainKey(db);
  if (!row.dkimSelector || !row.dkimPrivateKey || !row.dkimPublicKey)
    throw new Error(`domain ${row.id} has no DKIM key`);
  return { selector: row.dkimSelector, privateKey: row.dkimPrivateKey, publicKey: row.dkimPublicKey };
}

export async function toDomain(db: DbOrTx, row: Row): Promise<Domain> {
  const key = await keyOf(db, row);
  const fallback: RecordStatus = row.status === "verified" ? "verified" : "pending";
  return {
    object: "domain",
    id: row.id,
    name: row.name,
    status: row.status,
    isShared: row.isShared,
    records: expectedRecords(row.name, key).map((r) => ({
      ...r,
      status: row.isShared ? "verified" : (row.recordStatus?.[r.purpose] ?? fallback),
    })),
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

export function refuseShared(row: Row): void {
  if (row.isShared) throw notPermitted("The shared domain is read-only.", "domainId");
}
