import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import {
  agents,
  apiKeys,
  audiences,
  contacts,
  domains,
  inboxes,
  memberships,
  templates,
  users,
  webhooks,
} from "@/db/schema";
import { agentUuid } from "@/lib/agents/agent";

/**
 * People's and resources' names for the console's audit log: `kind:id` (an actor string such as
 * `api_key:<id>`, `mcp:<keyId>`, `user:<id>`, `agent:agt_…`, or a resource's type and id) → the
 * key's name, the member's email, the inbox's address, … Only the organization's own rows (a user
 * only while a member); anything else keeps its id. `withKeys`: name API keys (roles that may read them).
 */
export async function auditNames(
  db: DbOrTx,
  orgId: string,
  refs: readonly { kind: string; id: string }[],
  opts: { withKeys: boolean },
): Promise<Map<string, string>> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const ids = (...kinds: string[]) => [
    ...new Set(refs.filter((r) => kinds.includes(r.kind) && uuid.test(r.id)).map((r) => r.id)),
  ];
  const out = new Map<string, string>();
  const put = (kinds: string[], rows: { id: string; name: string | null }[]) => {
    for (const r of rows) if (r.name) for (const k of kinds) out.set(`${k}:${r.id}`, r.name);
  };
  const keyIds = opts.withKeys ? ids("api_key", "mcp") : [];
  const userIds = ids("user");
  const agentRefs = [
    ...new Set(refs.filter((r) => r.kind === "agent").map((r) => ({ ref: r.id, id: agentUuid(r.id) }))),
  ].filter((a): a is { ref: string; id: string } => a.id !== null);
  const simple = [
    [inboxes, inboxes.address, "inbox"],
    [domains, domains.name, "domain"],
    [webhooks, webhooks.url, "webhook"],
    [templates, templates.name, "template"],
    [contacts, contacts.displayName, "contact"],
    [audiences, audiences.name, "audience"],
  ] as const;
  await Promise.all([
    keyIds.length > 0
      ? db
          .select({ id: apiKeys.id, name: apiKeys.name })
          .from(apiKeys)
          .where(and(eq(apiKeys.orgId, orgId), inArray(apiKeys.id, keyIds)))
          .then((rows) => put(["api_key", "mcp"], rows))
      : null,
    userIds.length > 0
      ? db
          .select({ id: users.id, name: users.email })
          .from(users)
          .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.orgId, orgId)))
          .where(inArray(users.id, userIds))
          .then((rows) => put(["user"], rows))
      : null,
    agentRefs.length > 0
      ? db
          .select({ id: agents.id, name: agents.display })
          .from(agents)
          .where(
            and(
              eq(agents.orgId, orgId),
              inArray(
                agents.id,
                agentRefs.map((a) => a.id),
              ),
            ),
          )
          .then((rows) => {
            for (const a of agentRefs) {
              const row = rows.find((r) => r.id === a.id);
              if (row) out.set(`agent:${a.ref}`, row.name);
            }
          })
      : null,
    ...simple.map(([table, column, kind]) => {
      const wanted = ids(kind);
      return wanted.length > 0
        ? db
            .select({ id: table.id, name: column })
            .from(table)
            .where(and(eq(table.orgId, orgId), inArray(table.id, wanted)))
            .then((rows) => put([kind], rows))
        : null;
    }),
  ]);
  return out;
}
