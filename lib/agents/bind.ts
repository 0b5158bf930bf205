import { and, eq, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agentBindings, agents, apiKeys, inboxes } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { noAuditNeeded, recordAudit } from "@/lib/core/audit";
import { ApiError, notFound } from "@/lib/core/errors";
import { agentPublicId, findAgent } from "./agent";

export async function bindAgent(
  db: DbOrTx,
  principal: Principal,
  ref: string,
  input: { apiKeyId?: string | null; inboxId?: string | null; unbind: boolean },
) {
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
      const targets = [
        apiKeyId ? eq(agentBindings.apiKeyId, apiKeyId) : undefined,
        inboxId ? eq(agentBindings.inboxId, inboxId) : undefined,
      ].filter((c): c is SQL => c !== undefined);
      const removed = await tx
        .delete(agentBindings)
        .where(and(eq(agentBindings.agentId, agent.id), or(...targets)))
        .returning({ id: agentBindings.id });
      if (removed.length === 0) noAuditNeeded("nothing named was bound to this agent");
      else
        await recordAudit(tx, principal, {
          orgId: principal.orgId,
          action: "agent.unbound",
          resourceType: "agent",
          resourceId: agent.id,
          metadata: { agentId: publicId, apiKeyId, inboxId },
        });
      return { agentId: publicId, bound: false, apiKeyId, inboxId };
    }
    if (agent.status === "revoked")
      throw new ApiError("conflict", "The agent is revoked; nothing can be bound to it.", "agentId");
    if (apiKeyId) {
      await tx
        .insert(agentBindings)
        .values({ orgId: principal.orgId, agentId: agent.id, apiKeyId })
        .onConflictDoUpdate({
          target: agentBindings.apiKeyId,
          targetWhere: sql`${agentBindings.apiKeyId} is not null`,
          set: { agentId: agent.id, createdAt: new Date() },
        });
    }
    if (inboxId) {
      await tx
        .insert(agentBindings)
        .values({ orgId: principal.orgId, agentId: agent.id, inboxId })
        .onConflictDoUpdate({
          target: agentBindings.inboxId,
          targetWhere: sql`${agentBindings.inboxId} is not null`,
          set: { agentId: agent.id, createdAt: new Date() },
        });
    }
    await tx.update(agents).set({ updatedAt: new Date() }).where(eq(agents.id, agent.id));
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "agent.bound",
      resourceType: "agent",
      resourceId: agent.id,
      metadata: { agentId: publicId, apiKeyId, inboxId },
    });
    return { agentId: publicId, bound: true, apiKeyId, inboxId };
  });
}
