import Link from "next/link";
import { AddDomainForm } from "@/components/console/config/domains";
import { Badge, Card, EmptyState, NoAccess, PageHeader, StatusBadge, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { listDomains } from "@/lib/domains/operations";

export const metadata = { title: "Domains — svc console" };

/** The organization's domains (the shared one included) and, for writers, the form to add one. */
export default async function DomainsPage() {
  const ctx = await getConsole();
  if (!ctx.can("domains:read")) {
    return <NoAccess title="Domains" what="domains" />;
  }
  const { domains } = await ctx.invoke(listDomains);
  const canWrite = ctx.can("domains:write");
  return (
    <>
      <PageHeader
        title="Domains"
        description="Send and receive on your own domains once their DNS records are published and verified. Every organization also has the shared domain."
      />
      <div className="space-y-6">
        {domains.length === 0 ? (
          <EmptyState
            title="No domains yet"
            description={
              canWrite ? "Add a domain below to get the DNS records to publish." : "An owner or admin can add one."
            }
          />
        ) : (
          <Table head={["Domain", "Status", "Kind", "Added"]} caption="Domains">
            {domains.map((d) => (
              <tr key={d.id}>
                <Td>
                  <Link className="link" href={`/domains/${d.id}`}>
                    {d.name}
                  </Link>
                </Td>
                <Td>
                  <StatusBadge status={d.status} />
                </Td>
                <Td>
                  {d.isShared ? (
                    <Badge tone="blue">shared, read-only</Badge>
                  ) : (
                    <span className="text-zinc-600 dark:text-zinc-400">own</span>
                  )}
                </Td>
                <Td>
                  <Time value={d.createdAt} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {canWrite ? (
          <Card title="Add a domain">
            <AddDomainForm />
          </Card>
        ) : null}
      </div>
    </>
  );
}
