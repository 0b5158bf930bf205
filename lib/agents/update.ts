import { and, eq, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, signingKeys } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError } from "@/lib/core/errors";
import { agentPublicId, type AgentRow, type AgentStatus, findAgent, presentOne } from "./agent";

/** Revokes in the caller's transaction: the passport, then its keys (no longer published, never sign again). */
async function revokeInTx(tx: DbOrTx, row: AgentRow, now: Date): Promise<AgentRow> {
  const [updated] = await tx
    .update(agents)
    .set({ status: "revoked", revokedAt: now, updatedAt: now })
    .where(eq(agents.id, row.id))
    .returning();
  await tx
    .update(signingKeys)
    .set({ status: "revoked", retiredAt: now })
    .where(
      and(
        eq(signingKeys.purpose, "agent"),
        eq(signingKeys.agentId, agentPublicId(row.id)),
        or(eq(signingKeys.status, "active"), eq(signingKeys.status, "retired")),
      ),
    );
  return updated ?? row;
}

export async function updateAgent(
  db: DbOrTx,
  principal: Principal,
  ref: string,
  input: { display?: string; description?: string | null; status?: AgentStatus },
) {
  return db.transaction(async (tx) => {
    const row = await findAgent(tx, principal.orgId, ref, { lock: true });
    if (row.status === "revoked")
      throw new ApiError("conflict", "The agent is revoked; a revoked passport cannot change.", "agentId");
    const now = new Date();
    let updated = row;
    if (
      input.display !== undefined ||
      input.description !== undefined ||
      (input.status !== undefined && input.status !== "revoked")
    ) {
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
    const action =
      input.status === "revoked"
        ? "agent.revoked"
        : input.status && input.status !== row.status
          ? `agent.${input.status === "active" ? "reactivated" : "suspended"}`
          : "agent.updated";
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action,
      resourceType: "agent",
      resourceId: row.id,
      metadata: { agentId: agentPublicId(row.id), fields: Object.keys(input), from: row.status, to: updated.status },
    });
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
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "agent.revoked",
      resourceType: "agent",
      resourceId: row.id,
      metadata: { agentId: agentPublicId(row.id), from: row.status },
    });
    return presentOne(tx, updated);
  });
}
