import Link from "next/link";
import { NewAudienceForm } from "@/components/console/audiences/audiences";
import { Card, EmptyState, NoAccess, PageHeader, Table, Td, Time } from "@/components/console/ui";
import { listAudiences } from "@/lib/audiences/operations";
import { getConsole } from "@/lib/console/context";

export const metadata = { title: "Audiences — svc console" };

/** Recipient lists for broadcasts, with their member counts, and a form that creates one. */
export default async function AudiencesPage() {
  const ctx = await getConsole();
  if (!ctx.can("audiences:read")) return <NoAccess title="Audiences" what="audiences" />;
  const { audiences } = await ctx.invoke(listAudiences);
  const canWrite = ctx.can("audiences:write");
  return (
    <>
      <PageHeader
        title="Audiences"
        description="Recipient lists: add members by address, contact or CSV import, then send a broadcast — one message per active member, each with a one-click unsubscribe link."
      />
      <div className="space-y-6">
        {audiences.length === 0 ? (
          <EmptyState title="No audiences yet" description={canWrite ? "Create one below." : undefined} />
        ) : (
          <Table head={["Audience", "Members", "Created"]} caption="Audiences">
            {audiences.map((a) => (
              <tr key={a.id}>
                <Td>
                  <Link className="link font-medium" href={`/audiences/${a.id}`}>
                    {a.name}
                  </Link>
                  {a.description ? (
                    <span className="block text-xs text-zinc-600 dark:text-zinc-400">{a.description}</span>
                  ) : null}
                </Td>
                <Td>{a.memberCount?.toLocaleString() ?? "—"}</Td>
                <Td>
                  <Time value={a.createdAt} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {canWrite ? (
          <Card title="New audience">
            <NewAudienceForm />
          </Card>
        ) : null}
      </div>
    </>
  );
}
