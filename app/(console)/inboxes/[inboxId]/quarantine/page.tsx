import Link from "next/link";
import { QuarantineActions } from "@/components/console/messaging/inbox-automation";
import { formatSender, subjectOf } from "@/components/console/messaging/format";
import { Address, Card, EmptyState, Mono, NoAccess, PageHeader, Pager, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getInbox } from "@/lib/inboxes/operations";
import { listMessages } from "@/lib/messages/operations";

export const metadata = { title: "Quarantine — svc console" };

/** The inbox's quarantined messages (failed its schema under `quarantine`), each released or discarded. */
export default async function InboxQuarantinePage({
  params,
  searchParams,
}: {
  params: Promise<{ inboxId: string }>;
  searchParams: Promise<{ cursor?: string }>;
}) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) return <NoAccess title="Quarantine" what="messages" />;
  const { inboxId } = await params;
  const { cursor } = await searchParams;
  const { inbox } = await readOne(inboxId, (id) => ctx.invoke(getInbox, { params: { inboxId: id } }));
  const page = await ctx.invoke(listMessages, {
    query: { inboxId: inbox.id, extractionStatus: "quarantined", limit: 25, ...(cursor ? { cursor } : {}) },
  });
  const writable = ctx.can("inboxes:write");
  const base = `/inboxes/${inbox.id}/quarantine`;
  return (
    <>
      <PageHeader
        title="Quarantine"
        description={`Messages to ${inbox.address} that did not validate against its schema. Releasing one delivers it (message.received).`}
        actions={
          <Link className="link text-sm" href={`/inboxes/${inbox.id}`}>
            Back to the inbox
          </Link>
        }
      />
      <Card title="Held messages">
        {page.messages.length === 0 ? (
          <EmptyState title="Nothing held" description="Messages that fail the inbox's schema appear here." />
        ) : (
          <Table head={["Subject", "From", "Errors", "Received", ""]} caption="Quarantined messages">
            {page.messages.map((m) => (
              <tr key={m.id}>
                <Td className="max-w-xs">
                  <Link className="link break-words" href={`/messages/${m.id}`}>
                    {subjectOf(m.subject)}
                  </Link>
                </Td>
                <Td className="max-w-xs">
                  <Address value={formatSender(m.from)} />
                </Td>
                <Td className="max-w-xs break-words">
                  <ul className="space-y-1">
                    {(m.extractionErrors ?? []).map((e) => (
                      <li key={`${e.field}:${e.message}`}>
                        {e.field ? <Mono>{e.field}</Mono> : "message"}: {e.message}
                      </li>
                    ))}
                  </ul>
                </Td>
                <Td>
                  <Time value={m.createdAt} />
                </Td>
                <Td>{writable ? <QuarantineActions messageId={m.id} label={subjectOf(m.subject)} /> : null}</Td>
              </tr>
            ))}
          </Table>
        )}
        <Pager
          nextHref={
            page.pagination.nextCursor ? `${base}?cursor=${encodeURIComponent(page.pagination.nextCursor)}` : null
          }
          firstHref={cursor ? base : null}
        />
      </Card>
    </>
  );
}
