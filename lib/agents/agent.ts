import { and, asc, eq, inArray, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agentBindings, agents, signingKeys } from "@/db/schema";
import { notFound } from "@/lib/core/errors";
import { fromPublicId, toPublicId } from "@/lib/core/public-ids";
import { jwksKeyOf, type SigningKeyRow } from "@/lib/trust/keys";
import { isUuid } from "@/lib/core/schemas";

export type AgentRow = typeof agents.$inferSelect;

type BindingRow = typeof agentBindings.$inferSelect;

export type AgentStatus = AgentRow["status"];

/** `agt_<uuid without dashes>`: the passport's public id (the provenance token's `sub`). */
export const agentPublicId = (uuid: string) => toPublicId("agt_", uuid);

/** The row id an `agt_` id or a UUID names, or null when it is neither. */
export function agentUuid(ref: string): string | null {
  if (isUuid(ref)) return ref.toLowerCase();
  return fromPublicId("agt_", ref);
}

/** The organization's agent named by `ref` (`agt_` id or UUID); 404 naming `param` otherwise. */
export async function findAgent(
  db: DbOrTx,
  orgId: string,
  ref: string,
  opts: { lock?: boolean; param?: string } = {},
): Promise<AgentRow> {
  const id = agentUuid(ref);
  if (!id) throw notFound("agent", opts.param ?? "agentId");
  const q = db
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, orgId), eq(agents.id, id)));
  const [row] = opts.lock ? await q.for("update") : await q;
  if (!row) throw notFound("agent", opts.param ?? "agentId");
  return row;
}

/** An agent by row id (any organization: the caller already holds a reference it owns), or null. */
export async function findAgentById(db: DbOrTx, id: string): Promise<AgentRow | null> {
  return (await db.select().from(agents).where(eq(agents.id, id)).limit(1))[0] ?? null;
}

async function keysOf(db: DbOrTx, publicIds: string[]): Promise<Map<string, SigningKeyRow[]>> {
  const out = new Map<string, SigningKeyRow[]>();
  if (publicIds.length === 0) return out;
  const rows = await db
    .select()
    .from(signingKeys)
    .where(and(eq(signingKeys.purpose, "agent"), inArray(signingKeys.agentId, publicIds)))
    .orderBy(asc(signingKeys.createdAt));
  for (const r of rows) out.set(r.agentId ?? "", [...(out.get(r.agentId ?? "") ?? []), r]);
  return out;
}

async function bindingsOf(db: DbOrTx, ids: string[]): Promise<Map<string, BindingRow[]>> {
  const out = new Map<string, BindingRow[]>();
  if (ids.length === 0) return out;
  const rows = await db
    .select()
    .from(agentBindings)
    .where(inArray(agentBindings.agentId, ids))
    .orderBy(asc(agentBindings.createdAt));
  for (const r of rows) out.set(r.agentId, [...(out.get(r.agentId) ?? []), r]);
  return out;
}

export function toAgent(row: AgentRow, keys: SigningKeyRow[], bindings: BindingRow[]) {
  return {
    object: "agent" as const,
    id: row.id,
    agentId: agentPublicId(row.id),
    display: row.display,
    description: row.description,
    status: row.status,
    keys: keys.map((k) => ({ ...jwksKeyOf(k), status: k.status, createdAt: k.createdAt.toISOString() })),
    bindings: {
      apiKeyIds: bindings.flatMap((b) => (b.apiKeyId ? [b.apiKeyId] : [])),
      inboxIds: bindings.flatMap((b) => (b.inboxId ? [b.inboxId] : [])),
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Agents as the API shows them, with their keys and bindings (two queries for any number). */
export async function presentAgents(db: DbOrTx, rows: AgentRow[]) {
  const keys = await keysOf(
    db,
    rows.map((r) => agentPublicId(r.id)),
  );
  const bindings = await bindingsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toAgent(r, keys.get(agentPublicId(r.id)) ?? [], bindings.get(r.id) ?? []));
}

export async function presentOne(db: DbOrTx, row: AgentRow) {
  const [agent] = await presentAgents(db, [row]);
  if (!agent) throw new Error("agent vanished");
  return { agent };
}

/**
 * The agent a send is made as: the one the sending API key is bound to, else the one the inbox
 * is bound to, else null.
 */
export async function agentOfSend(
  db: DbOrTx,
  orgId: string,
  apiKeyId: string | null,
  inboxId: string,
  /** The bindings of this key and inbox, when the caller has read them already. */
  known?: AgentBindingRead[],
): Promise<AgentRow | null> {
  const rows =
    known ??
    (await db
      .select({ agent: agents, apiKeyId: agentBindings.apiKeyId })
      .from(agentBindings)
      .innerJoin(agents, eq(agents.id, agentBindings.agentId))
      .where(
        and(
          eq(agentBindings.orgId, orgId),
          or(eq(agentBindings.inboxId, inboxId), apiKeyId ? eq(agentBindings.apiKeyId, apiKeyId) : undefined),
        ),
      ));
  return (rows.find((r) => r.apiKeyId !== null) ?? rows[0])?.agent ?? null;
}

/** A binding of a send's key or inbox with its agent (`agentOfSend`'s rows). */
export interface AgentBindingRead {
  agent: AgentRow;
  apiKeyId: string | null;
}
