import { and, asc, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agentBindings, agents, apiKeys, inboxes, signingKeys } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, notFound } from "@/lib/core/errors";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { fromPublicId, toPublicId } from "@/lib/core/public-ids";
import { insertSigningKey, jwksKeyOf, type SigningKeyRow } from "@/lib/trust/keys";
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
export async function findAgent(db: DbOrTx, orgId: string, ref: string, opts: { lock?: boolean; param?: string } = {}): Promise<AgentRow> {
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
  const rows = await db.select().from(agentBindings).where(inArray(agentBindings.agentId, ids)).orderBy(asc(agentBindings.createdAt));
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

async function presentOne(db: DbOrTx, row: AgentRow) {
  const [agent] = await presentAgents(db, [row]);
  if (!agent) throw new Error("agent vanished");
  return { agent };
}

export async function listAgents(db: DbOrTx, principal: Principal, query: { limit: number; cursor?: string; status?: AgentStatus }) {
  const after = decodeCursor(query.cursor);
  const where: (SQL | undefined)[] = [eq(agents.orgId, principal.orgId), keysetBefore(agents.createdAt, agents.id, after)];
  if (query.status) where.push(eq(agents.status, query.status));
  const rows = await db
    .select()
    .from(agents)
    .where(and(...where))
    .orderBy(desc(agents.createdAt), desc(agents.id))
    .limit(query.limit + 1);
  const { items, pagination } = toPage(rows, query.limit);
  return { agents: await presentAgents(db, items), pagination };
}

export async function createAgent(db: DbOrTx, principal: Principal, input: { display: string; description?: string | null }) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(agents)
      .values({ orgId: principal.orgId, display: input.display, description: input.description ?? null })
      .returning();
    if (!row) throw new Error("agent insert returned nothing");
    const key = await insertSigningKey(tx, { purpose: "agent", orgId: principal.orgId, agentId: agentPublicId(row.id) });
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "agent.created", resourceType: "agent", resourceId: row.id, metadata: { agentId: agentPublicId(row.id), kid: key?.kid } });
    return presentOne(tx, row);
  });
}

export async function getAgent(db: DbOrTx, principal: Principal, ref: string) {
  return presentOne(db, await findAgent(db, principal.orgId, ref));
}

/** Revokes in the caller's transaction: the passport, then its keys (no longer published, never sign again). */
async function revokeInTx(tx: DbOrTx, row: AgentRow, now: Date): Promise<AgentRow> {
  const [updated] = await tx.update(agents).set({ status: "revoked", revokedAt: now, updatedAt: now }).where(eq(agents.id, row.id)).returning();
  await tx
    .update(signingKeys)
    .set({ status: "revoked", retiredAt: now })
    .where(and(eq(signingKeys.purpose, "agent"), eq(signingKeys.agentId, agentPublicId(row.id)), or(eq(signingKeys.status, "active"), eq(signingKeys.status, "retired"))));
  return updated ?? row;
}

export async function updateAgent(db: DbOrTx, principal: Principal, ref: string, input: { display?: string; description?: string | null; status?: AgentStatus }) {
  return db.transaction(async (tx) => {
    const row = await findAgent(tx, principal.orgId, ref, { lock: true });
    if (row.status === "revoked") throw new ApiError("conflict", "The agent is revoked; a revoked passport cannot change.", "agentId");
    const now = new Date();
    let updated = row;
    if (input.display !== undefined || input.description !== undefined || (input.status !== undefined && input.status !== "revoked")) {
      const [u] = await tx
        .update(agents)
        .set({
          ...(input.display !== undefined ? { display: input.display } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.status !== undefined && input.status !== "revoked" ? { status: input.status } : {}),
          updatedAt: now,
        })
        .where(eq(agents.id, row.id))
        .returning();
      updated = u ?? row;
    }
    if (input.status === "revoked") updated = await revokeInTx(tx, updated, now);
    const action = input.status === "revoked" ? "agent.revoked" : input.status && input.status !== row.status ? `agent.${input.status === "active" ? "reactivated" : "suspended"}` : "agent.updated";
    await recordAudit(tx, principal, { orgId: principal.orgId, action, resourceType: "agent", resourceId: row.id, metadata: { agentId: agentPublicId(row.id), fields: Object.keys(input), from: row.status, to: updated.status } });
    return presentOne(tx, updated);
  });
}

export async function revokeAgent(db: DbOrTx, principal: Principal, ref: string) {
  return db.transaction(async (tx) => {
    const row = await findAgent(tx, principal.orgId, ref, { lock: true });
    if (row.status === "revoked") {
      noAuditNeeded("the agent was already revoked");
      return presentOne(tx, row);
    }
    const updated = await revokeInTx(tx, row, new Date());
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "agent.revoked", resourceType: "agent", resourceId: row.id, metadata: { agentId: agentPublicId(row.id), from: row.status } });
    return presentOne(tx, updated);
  });
}

export async function bindAgent(db: DbOrTx, principal: Principal, ref: string, input: { apiKeyId?: string | null; inboxId?: string | null; unbind: boolean }) {
  return db.transaction(async (tx) => {
    const agent = await findAgent(tx, principal.orgId, ref, { lock: true });
    const apiKeyId = input.apiKeyId ?? null;
    const inboxId = input.inboxId ?? null;
    if (apiKeyId) {
      const [key] = await tx
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.orgId, principal.orgId), eq(apiKeys.id, apiKeyId)));
      if (!key) throw notFound("API key", "apiKeyId");
    }
    if (inboxId) {
      const [inbox] = await tx
        .select({ id: inboxes.id, status: inboxes.status })
        .from(inboxes)
        .where(and(eq(inboxes.orgId, principal.orgId), eq(inboxes.id, inboxId)));
      if (!inbox || inbox.status === "deleted") throw notFound("inbox", "inboxId");
    }
    const publicId = agentPublicId(agent.id);
    if (input.unbind) {
      const targets = [apiKeyId ? eq(agentBindings.apiKeyId, apiKeyId) : undefined, inboxId ? eq(agentBindings.inboxId, inboxId) : undefined].filter((c): c is SQL => c !== undefined);
      const removed = await tx
        .delete(agentBindings)
        .where(and(eq(agentBindings.agentId, agent.id), or(...targets)))
        .returning({ id: agentBindings.id });
      if (removed.length === 0) noAuditNeeded("nothing named was bound to this agent");
      else await recordAudit(tx, principal, { orgId: principal.orgId, action: "agent.unbound", resourceType: "agent", resourceId: agent.id, metadata: { agentId: publicId, apiKeyId, inboxId } });
      return { agentId: publicId, bound: false, apiKeyId, inboxId };
    }
    if (agent.status === "revoked") throw new ApiError("conflict", "The agent is revoked; nothing can be bound to it.", "agentId");
    if (apiKeyId) {
      await tx
        .insert(agentBindings)
        .values({ orgId: principal.orgId, agentId: agent.id, apiKeyId })
        .onConflictDoUpdate({ target: agentBindings.apiKeyId, targetWhere: sql`${agentBindings.apiKeyId} is not null`, set: { agentId: agent.id, createdAt: new Date() } });
    }
    if (inboxId) {
      await tx
        .insert(agentBindings)
        .values({ orgId: principal.orgId, agentId: agent.id, inboxId })
        .onConflictDoUpdate({ target: agentBindings.inboxId, targetWhere: sql`${agentBindings.inboxId} is not null`, set: { agentId: agent.id, createdAt: new Date() } });
    }
    await tx.update(agents).set({ updatedAt: new Date() }).where(eq(agents.id, agent.id));
    await recordAudit(tx, principal, { orgId: principal.orgId, action: "agent.bound", resourceType: "agent", resourceId: agent.id, metadata: { agentId: publicId, apiKeyId, inboxId } });
    return { agentId: publicId, bound: true, apiKeyId, inboxId };
  });
}

/**
 * The agent a send is made as: the one the sending API key is bound to, else the one the inbox
 * is bound to, else null.
 */
export async function agentOfSend(db: DbOrTx, orgId: string, apiKeyId: string | null, inboxId: string): Promise<AgentRow | null> {
  const rows = await db
    .select({ agent: agents, apiKeyId: agentBindings.apiKeyId })
    .from(agentBindings)
    .innerJoin(agents, eq(agents.id, agentBindings.agentId))
    .where(and(eq(agentBindings.orgId, orgId), or(eq(agentBindings.inboxId, inboxId), apiKeyId ? eq(agentBindings.apiKeyId, apiKeyId) : undefined)));
  return (rows.find((r) => r.apiKeyId !== null) ?? rows[0])?.agent ?? null;
}
