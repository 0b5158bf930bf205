import Link from "next/link";
import { CreateWebhookForm, EventList } from "@/components/console/config/webhooks";
import { Badge, Card, EmptyState, NoAccess, PageHeader, StatusBadge, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { EVENT_TYPES } from "@/lib/events/ledger";
import { eventTypeGroups } from "@/lib/console/pickers";
import { listWebhooks } from "@/lib/webhooks/operations";

export const metadata = { title: "Webhooks — svc console" };

/** The organization's webhook endpoints with status and breaker, and the form to add one. */
export default async function WebhooksPage() {
  const ctx = await getConsole();
  if (!ctx.can("webhooks:read")) {
    return <NoAccess title="Webhooks" what="webhooks" />;
  }
  const { webhooks } = await ctx.invoke(listWebhooks);
  const canWrite = ctx.can("webhooks:write");
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive your organization's events as signed POST requests, retried on failure, with a delivery log per endpoint."
      />
      <div className="space-y-6">
        {webhooks.length === 0 ? (
          <EmptyState
            title="No webhooks yet"
            description={canWrite ? "Create one below to receive events." : "An owner or admin can create one."}
          />
        ) : (
          <Table head={["Endpoint", "Status", "Events", "Created"]} caption="Webhooks">
            {webhooks.map((w) => (
              <tr key={w.id}>
                <Td className="max-w-md break-all">
                  <Link className="link" href={`/webhooks/${w.id}`}>
                    {w.url}
                  </Link>
                  {w.label ? <span className="block text-xs text-zinc-600 dark:text-zinc-400">{w.label}</span> : null}
                </Td>
                <Td>
                  <span className="flex flex-wrap gap-1">
                    <StatusBadge status={w.status} />
                    {w.autoPaused ? <Badge tone="red">breaker open</Badge> : null}
                    {!w.autoPaused && w.consecutiveFailures > 0 ? (
                      <Badge tone="yellow">{w.consecutiveFailures} failing</Badge>
                    ) : null}
                  </span>
                </Td>
                <Td>
                  <EventList events={w.events} total={EVENT_TYPES.length} />
                </Td>
                <Td>
                  <Time value={w.createdAt} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {canWrite ? (
          <Card title="Create a webhook">
            <CreateWebhookForm eventTypes={EVENT_TYPES} groups={eventTypeGroups()} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
