import Link from "next/link";
import { BroadcastBar } from "@/components/console/audiences/broadcast-bar";
import { subjectOf } from "@/components/console/messaging/format";
import { Address, EmptyState, NoAccess, PageHeader, StatusBadge, Table, Td, Time } from "@/components/console/ui";
import { BROADCASTS_LISTED } from "@/lib/audiences/broadcast";
import { getConsole } from "@/lib/console/context";
import { broadcasts as readBroadcasts } from "@/lib/console/reads";

export const metadata = { title: "Broadcasts — svc console" };

/** The organization's newest broadcasts with their progress, audience and sender. */
export default async function BroadcastsPage() {
  const ctx = await getConsole();
  if (!ctx.can("audiences:read")) return <NoAccess title="Broadcasts" what="broadcasts" />;
  const list = await readBroadcasts(ctx);
  return (
    <>
      <PageHeader
        title="Broadcasts"
        description={`One message to every active member of an audience, sent in the background. The newest ${BROADCASTS_LISTED}, newest first; send one from an audience's page.`}
        actions={
          <Link className="link text-sm" href="/audiences">
            Audiences
          </Link>
        }
      />
      {list.length === 0 ? (
        <EmptyState
          title="No broadcasts yet"
          description="Open an audience and send it a broadcast; its progress shows here."
          action={
            <Link className="link" href="/audiences">
              Open the audiences
            </Link>
          }
        />
      ) : (
        <Table
          head={["Subject", "Status", "Progress", "Audience", "From", "Created", "Completed"]}
          caption="Broadcasts"
        >
          {list.map((b) => (
            <tr key={b.id}>
              <Td className="max-w-xs">
                <Link className="link break-words" href={`/broadcasts/${b.id}`}>
                  {subjectOf(b.subject)}
                </Link>
              </Td>
              <Td>
                <StatusBadge status={b.status} />
              </Td>
              <Td className="min-w-48">
                <BroadcastBar counts={b.counts} />
              </Td>
              <Td>
                {b.audienceName ? (
                  <Link className="link break-words" href={`/audiences/${b.audienceId}`}>
                    {b.audienceName}
                  </Link>
                ) : (
                  "—"
                )}
              </Td>
              <Td className="max-w-56">{b.inboxAddress ? <Address value={b.inboxAddress} /> : "—"}</Td>
              <Td>
                <Time value={b.createdAt} />
              </Td>
              <Td>{b.completedAt ? <Time value={b.completedAt} /> : "not yet"}</Td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
