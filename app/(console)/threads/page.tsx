import Link from "next/link";
import { z } from "zod";
import { formatAddresses, subjectOf } from "@/components/console/messaging/format";
import { hrefWith, PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { Button, Select } from "@/components/console/form";
import { EmptyState, ErrorNotice, Mono, NoAccess, PageHeader, Pager, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { threadParticipants } from "@/lib/console/reads";
import { listInboxes } from "@/lib/inboxes/operations";
import { listThreads } from "@/lib/messages/operations";

export const metadata = { title: "Threads — svc console" };

/** Conversations by most recent activity, optionally of one inbox; 50 a page, keyset cursor in the URL. */
export default async function ThreadsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) {
    return <NoAccess title="Threads" what="messages" />;
  }
  const sp = await searchParams;
  const inboxId = param(sp, "inboxId");
  const cursor = param(sp, "cursor");
  const badInbox = inboxId !== undefined && !z.uuid().safeParse(inboxId).success;
  const [page, inboxes] = await Promise.all([
    badInbox ? Promise.resolve({ ok: false as const, message: "The inbox filter is not a valid inbox id." }) : readList(() => ctx.invoke(listThreads, { query: { limit: PAGE_SIZE, cursor, inboxId } })),
    ctx.can("inboxes:read") ? ctx.invoke(listInboxes).then((r) => r.inboxes) : Promise.resolve([]),
  ]);
  const threads = page.ok ? page.data.threads : [];
  const participants = await threadParticipants(ctx, threads.map((t) => t.id));
  const addressOf = new Map(inboxes.map((i) => [i.id, i.address]));
  const filters = { inboxId: badInbox ? undefined : inboxId };
  const filtered = addressOf.get(inboxId ?? "");

  return (
    <>
      <PageHeader title="Threads" description="Conversations, most recent activity first. Each thread belongs to one inbox." />
      <div className="space-y-4">
        {inboxes.length > 0 ? (
          <form method="get" action="/threads" aria-label="Filter threads" className="flex flex-wrap items-end gap-3">
            <div className="w-72 max-w-full">
              <Select label="Inbox" name="inboxId" defaultValue={filters.inboxId ?? ""}>
                <option value="">All inboxes</option>
                {inboxes.map((i) => (
                  <option key={i.id} value={i.id}>
                    {i.address}
                  </option>
                ))}
              </Select>
            </div>
            <Button variant="secondary">Filter</Button>
          </form>
        ) : null}

        {!page.ok ? (
          <ErrorNotice>
            {page.message}{" "}
            <Link className="link" href="/threads">
              Show the newest
            </Link>
          </ErrorNotice>
        ) : threads.length === 0 ? (
          <EmptyState
            title={filters.inboxId ? "No threads in this inbox" : "No threads yet"}
            description={cursor ? "There is nothing older." : "A thread starts when an inbox sends or receives a message."}
            action={
              cursor ? (
                <Link className="link" href={hrefWith("/threads", filters)}>
                  Show the newest
                </Link>
              ) : undefined
            }
          />
        ) : (
          <>
            <Table head={["Subject", "Inbox", "Participants", "Messages", "Last activity"]} caption={filtered ? `Threads of ${filtered}` : "Threads"}>
              {threads.map((t) => (
                <tr key={t.id}>
                  <Td>
                    <Link className="link break-words" href={`/threads/${t.id}`}>
                      {subjectOf(t.subject)}
                    </Link>
                  </Td>
                  <Td className="break-all">{addressOf.get(t.inboxId) ?? <Mono>{t.inboxId}</Mono>}</Td>
                  <Td className="break-words">{formatAddresses(participants.get(t.id) ?? [])}</Td>
                  <Td className="tabular-nums">{t.messageCount}</Td>
                  <Td>
                    <Time value={t.lastMessageAt} />
                  </Td>
                </tr>
              ))}
            </Table>
            <Pager {...pagerLinks("/threads", filters, cursor, page.data.pagination.nextCursor)} />
          </>
        )}
      </div>
    </>
  );
}
