import { CreateKeyForm, RevokeKeyButton } from "@/components/console/config/api-keys";
import {
  Badge,
  Card,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { listApiKeys } from "@/lib/api-keys/operations";
import Link from "next/link";
import { getConsole } from "@/lib/console/context";
import { requestCountsByKey } from "@/lib/console/reads";
import { scopeChoices } from "@/lib/console/pickers";
import { listInboxes } from "@/lib/inboxes/operations";

export const metadata = { title: "API keys — svc console" };

/** "3 addresses" / "any" for a key's optional restriction lists. */
function restriction(list: string[] | null, one: string, many: string, none: string): string {
  if (!list || list.length === 0) return none;
  return list.length === 1 ? `1 ${one}` : `${list.length} ${many}`;
}

/** The organization's API keys (secrets never shown again), revoke, and the create form. */
export default async function ApiKeysPage() {
  const ctx = await getConsole();
  if (!ctx.can("keys:read")) {
    return <NoAccess title="API keys" what="API keys" />;
  }
  const canWrite = ctx.can("keys:write");
  const [{ apiKeys }, { inboxes }, requests] = await Promise.all([
    ctx.invoke(listApiKeys),
    canWrite ? ctx.invoke(listInboxes) : Promise.resolve({ inboxes: [] }),
    requestCountsByKey(ctx),
  ]);
  const canReadLogs = ctx.can("account:read");
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate calls to the /v1 API with the scopes you grant them. A key's secret is shown once, when it is created."
      />
      <div className="space-y-6">
        {apiKeys.length === 0 ? (
          <EmptyState
            title="No API keys yet"
            description={canWrite ? "Create one below to call the API." : "An owner or admin can create one."}
          />
        ) : (
          <Table
            head={[
              "Name",
              "Prefix",
              "Scopes",
              "Restrictions",
              "Last used",
              ...(canReadLogs ? ["Requests (24 h)"] : []),
              "Status",
              <span key="a" className="sr-only">
                Actions
              </span>,
            ]}
            caption="API keys"
          >
            {apiKeys.map((k) => (
              <tr key={k.id}>
                <Td className="font-medium">{k.name}</Td>
                <Td>
                  <Mono>{k.prefix}</Mono>
                  <span className="block text-xs text-zinc-600 dark:text-zinc-400">{k.environment}</span>
                </Td>
                <Td>
                  <ul className="flex max-w-xs flex-wrap gap-1">
                    {k.scopes.map((s) => (
                      <li key={s}>
                        <Badge>{s}</Badge>
                      </li>
                    ))}
                  </ul>
                </Td>
                <Td className="text-xs text-zinc-700 dark:text-zinc-300">
                  <span className="block">IPs: {restriction(k.allowedIps, "entry", "entries", "any")}</span>
                  <span className="block">Inboxes: {restriction(k.inboxIds, "inbox", "inboxes", "any")}</span>
                </Td>
                <Td>
                  {k.lastUsedAt ? (
                    <Time value={k.lastUsedAt} />
                  ) : (
                    <span className="text-zinc-600 dark:text-zinc-400">Never</span>
                  )}
                </Td>
                {canReadLogs ? (
                  <Td>
                    <Link
                      className="link tabular-nums"
                      href={`/logs?keyId=${k.id}`}
                      aria-label={`${requests.get(k.id) ?? 0} requests by ${k.name} in the last 24 hours: open its log`}
                    >
                      {requests.get(k.id) ?? 0}
                    </Link>
                  </Td>
                ) : null}
                <Td>
                  <StatusBadge status={k.status} />
                </Td>
                <Td className="text-right">
                  {canWrite && k.status === "active" ? <RevokeKeyButton keyId={k.id} name={k.name} /> : null}
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {canWrite ? (
          <Card title="Create an API key">
            <CreateKeyForm inboxes={inboxes.map((i) => ({ id: i.id, address: i.address }))} scopes={scopeChoices()} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
