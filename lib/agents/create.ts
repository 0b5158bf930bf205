import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { recordAudit } from "@/lib/core/audit";
import { insertSigningKey } from "@/lib/trust/keys";
import { agentPublicId, presentOne } from "./agent";

export async function createAgent(
  db: DbOrTx,
  principal: Principal,
  input: { display: string; description?: string | null },
) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(agents)
      .values({ orgId: principal.orgId, display: input.display, description: input.description ?? null })
      .returning();
    if (!row) throw new Error("agent insert returned nothing");
    const key = await insertSigningKey(tx, {
      purpose: "agent",
      orgId: principal.orgId,
      agentId: agentPublicId(row.id),
    });
    await recordAudit(tx, principal, {
      orgId: principal.orgId,
      action: "agent.created",
      resourceType: "agent",
      resourceId: row.id,
      metadata: { agentId: agentPublicId(row.id), kid: key?.kid },
    });
    return presentOne(tx, row);
  });
}
