import Link from "next/link";
import { CreateInboxForm, type DomainOption } from "@/components/console/messaging/inbox-forms";
import {
  Address,
  Badge,
  Card,
  EmptyState,
  NoAccess,
  PageHeader,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { type ConsoleContext, getConsole } from "@/lib/console/context";
import { listDomains } from "@/lib/domains/operations";
import { listInboxes } from "@/lib/inboxes/operations";
import { INBOX_MODE_WORDS } from "@/lib/console/labels";

export const metadata = { title: "Inboxes — svc console" };

/** The organization's inboxes, and (for those who may create them) the create form. */
export default async function InboxesPage() {
  const ctx = await getConsole();
  if (!ctx.can("inboxes:read")) {
    return <NoAccess title="Inboxes" what="inboxes" />;
  }
  const canWrite = ctx.can("inboxes:write");
  const [{ inboxes }, domains] = await Promise.all([
    ctx.invoke(listInboxes),
    canWrite ? usableDomains(ctx) : Promise.resolve([]),
  ]);
  return (
    <>
      <PageHeader
        title="Inboxes"
        description="Addresses that send and receive mail for this organization. Open one to send from it or change its settings."
      />
      <div className="space-y-6">
        {inboxes.length === 0 ? (
          <EmptyState
            title="No inboxes yet"
            description={
              canWrite ? "Create one below: the shared domain works right away." : "An owner or admin can create one."
            }
          />
        ) : (
          <Table head={["Address", "Display name", "Mode", "Status", "Created"]} caption="Inboxes">
            {inboxes.map((inbox) => (
              <tr key={inbox.id}>
                <Td>
                  <Link className="link block max-w-xs" href={`/inboxes/${inbox.id}`}>
                    <Address value={inbox.address} />
                  </Link>
                </Td>
                <Td>{inbox.displayName ?? <span className="text-zinc-600 dark:text-zinc-400">—</span>}</Td>
                <Td>
                  <Badge>{INBOX_MODE_WORDS[inbox.mode].label}</Badge>
                  <span className="mt-1 block max-w-56 text-xs text-zinc-600 dark:text-zinc-400">
                    {INBOX_MODE_WORDS[inbox.mode].description}
                  </span>
                </Td>
                <Td>
                  <StatusBadge status={inbox.status} />
                </Td>
                <Td>
                  <Time value={inbox.createdAt} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {canWrite ? (
          <Card title="Create an inbox">
            <CreateInboxForm domains={domains} />
          </Card>
        ) : null}
      </div>
    </>
  );
}

/** Domains an inbox can be created on: the shared domain first, then the verified ones. */
async function usableDomains(ctx: ConsoleContext): Promise<DomainOption[]> {
  const { domains } = await ctx.invoke(listDomains);
  return domains
    .filter((d) => d.isShared || d.status === "verified")
    .sort((a, b) => Number(b.isShared) - Number(a.isShared))
    .map((d) => ({ name: d.name, isShared: d.isShared }));
}
