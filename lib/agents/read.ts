import { and, desc, eq, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { decodeCursor, keysetBefore, toPage } from "@/lib/core/pagination";
import { type AgentStatus, findAgent, presentAgents, presentOne } from "./agent";

export async function listAgents(
  db: DbOrTx,
  principal: Principal,
  query: { limit: number; cursor?: string; status?: AgentStatus },
) {
  const after = decodeCursor(query.cursor);
  const where: (SQL | undefined)[] = [
    eq(agents.orgId, principal.orgId),
    keysetBefore(agents.createdAt, agents.id, after),
  ];
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

export async function getAgent(db: DbOrTx, principal: Principal, ref: string) {
  return presentOne(db, await findAgent(db, principal.orgId, ref));
}
