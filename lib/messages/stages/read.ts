import { sql } from "drizzle-orm";
import type { Db } from "@/db";
import { rowsOf } from "@/db/client";
import { rowOf } from "@/db/rows";
import { agentBindings, agents, budgets, domains, inboxConnections, inboxes, suppressions } from "@/db/schema";
import type { AgentBindingRead } from "@/lib/agents/agent";
import type { Principal } from "@/lib/auth/principal";
import { isContactRef } from "@/lib/contacts/addressing";
import type { ConnectionRow } from "@/lib/inboxes/connections";
import type { InboxRow } from "@/lib/inboxes/service";
import type { ValidatedRequest } from "./draft";

/**
 * What a send reads before it is stored, read ahead in one statement (stage 1½): the sending
 * inbox, its connections, the agent bindings of its key and inbox, the inboxes of this service
 * and the complaint suppressions among the recipients written as plain addresses, whether the
 * organization has any budget, and the inbox's domain (email's signing key). The stages take their
 * rows from here instead of a statement each (seven before); a lookup this did not cover (a recipient given as a contact reference, an address
 * the channel writes differently) reads as before. One snapshot, read at the point the first of
 * those reads was made.
 */
export interface SendReads {
  inbox: InboxRow | null;
  connections: ConnectionRow[];
  bindings: AgentBindingRead[];
  /** The addresses `inboxes` and `suppressions` were read for: lower-case, trimmed. */
  addresses: ReadonlySet<string>;
  inboxes: InboxRow[];
  suppressions: SuppressionRow[];
  /** False when the organization has no budget at all (nothing to check). */
  budgeted: boolean;
  /** The sending inbox's domain (its DKIM key for email), null when it has none. */
  domain: DomainRow | null;
}

export type DomainRow = typeof domains.$inferSelect;

export type SuppressionRow = typeof suppressions.$inferSelect;

const list = (r: string | string[] | undefined): string[] => (r === undefined ? [] : Array.isArray(r) ? r : [r]);
const json = <T>(v: unknown): T => (typeof v === "string" ? JSON.parse(v) : v) as T;

export async function readAhead(db: Db, principal: Principal, v: ValidatedRequest): Promise<SendReads> {
  const { orgId, apiKeyId } = principal;
  const inboxId = v.input.inboxId;
  const addresses = new Set(
    [...list(v.input.to), ...list(v.input.cc), ...list(v.input.bcc)]
      .filter((a) => !isContactRef(a))
      .map((a) => a.trim().toLowerCase()),
  );
  const wanted = sql`array[${sql.join(
    [...addresses].map((a) => sql`${a}`),
    sql`, `,
  )}]::text[]`;
  const [raw] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select
      (select row_to_json(i) from ${inboxes} i where i.org_id = ${orgId} and i.id = ${inboxId}) as inbox,
      (select coalesce(json_agg(c), '[]') from ${inboxConnections} c where c.inbox_id = ${inboxId}) as connections,
      (select coalesce(json_agg(json_build_object('agent', a, 'apiKeyId', b.api_key_id)), '[]')
        from ${agentBindings} b join ${agents} a on a.id = b.agent_id
        where b.org_id = ${orgId} and (b.inbox_id = ${inboxId} or b.api_key_id = ${apiKeyId}::uuid)) as bindings,
      (select coalesce(json_agg(r), '[]') from ${inboxes} r where r.address = any(${wanted})) as inboxes,
      (select coalesce(json_agg(s), '[]') from ${suppressions} s
        where s.org_id = ${orgId} and s.address = any(${wanted})) as suppressions,
      exists (select 1 from ${budgets} where org_id = ${orgId}) as budgeted,
      (select row_to_json(d) from ${domains} d join ${inboxes} i on d.id = i.domain_id
        where i.org_id = ${orgId} and i.id = ${inboxId}) as domain`),
  );
  if (!raw) throw new Error("the send's read-ahead returned nothing");
  const inbox = json<Record<string, unknown> | null>(raw.inbox);
  const domain = json<Record<string, unknown> | null>(raw.domain);
  return {
    inbox: inbox ? rowOf(inboxes, inbox) : null,
    connections: json<Record<string, unknown>[]>(raw.connections).map((c) => rowOf(inboxConnections, c)),
    bindings: json<{ agent: Record<string, unknown>; apiKeyId: string | null }[]>(raw.bindings).map((b) => ({
      agent: rowOf(agents, b.agent),
      apiKeyId: b.apiKeyId,
    })),
    addresses,
    inboxes: json<Record<string, unknown>[]>(raw.inboxes).map((r) => rowOf(inboxes, r)),
    suppressions: json<Record<string, unknown>[]>(raw.suppressions).map((s) => rowOf(suppressions, s)),
    budgeted: raw.budgeted === true || raw.budgeted === "t",
    domain: domain ? rowOf(domains, domain) : null,
  };
}

/** The rows read ahead for `addresses` when every one of them was covered, else undefined (read them). */
export function coveredRows<T extends { address: string }>(
  reads: SendReads | undefined,
  rows: (r: SendReads) => T[],
  addresses: readonly string[],
): T[] | undefined {
  if (!reads) return undefined;
  const wanted = new Set(addresses.map((a) => a.trim().toLowerCase()));
  for (const a of wanted) if (!reads.addresses.has(a)) return undefined;
  return rows(reads).filter((r) => wanted.has(r.address));
}
