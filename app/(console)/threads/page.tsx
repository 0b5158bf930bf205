import Link from "next/link";
import { z } from "zod";
import { formatAddresses, subjectOf } from "@/components/console/messaging/format";
import { hrefWith, PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { Field, Select } from "@/components/console/form";
import { FilterForm } from "@/components/console/filter-form";
import {
  Badge,
  EmptyState,
  ErrorNotice,
  Mono,
  NoAccess,
  PageHeader,
  Pager,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { threadSummaries } from "@/lib/console/reads";
import { listThreads as listThreadsContract } from "@/lib/messages/contracts";
import { listInboxes } from "@/lib/inboxes/operations";
import { listThreads } from "@/lib/messages/operations";

export const metadata = { title: "Threads — svc console" };

/**
 * Conversations by most recent activity, searched by subject and optionally of one inbox; 50 a page,
 * keyset cursor in the URL. A thread belongs to one inbox, so a conversation between two inboxes of
 * the organization is two rows: each names its inbox, and the latest message's direction (from that
 * inbox's side) and preview tell them apart.
 */
export default async function ThreadsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) {
    return <NoAccess title="Threads" what="messages" />;
  }
  const sp = await searchParams;
  const inboxId = param(sp, "inboxId");
  const q = param(sp, "q");
  const cursor = param(sp, "cursor");
  const badInbox = inboxId !== undefined && !z.uuid().safeParse(inboxId).success;
  const query = listThreadsContract.query.safeParse({
    limit: PAGE_SIZE,
    cursor,
    inboxId: badInbox ? undefined : inboxId,
    q,
  });
  const [page, inboxes] = await Promise.all([
    badInbox
      ? Promise.resolve({ ok: false as const, message: "The inbox filter is not a valid inbox id." })
      : query.success
        ? readList(() => ctx.invoke(listThreads, { query: query.data }))
        : Promise.resolve({ ok: false as const, message: "The search is not valid (up to 200 characters)." }),
    ctx.can("inboxes:read") ? ctx.invoke(listInboxes).then((r) => r.inboxes) : Promise.resolve([]),
  ]);
  const threads = page.ok ? page.data.threads : [];
  const summaries = await threadSummaries(
    ctx,
    threads.map((t) => t.id),
  );
  const addressOf = new Map(inboxes.map((i) => [i.id, i.address]));
  const filters = { q, inboxId: badInbox ? undefined : inboxId };
  const filtered = addressOf.get(inboxId ?? "");

  return (
    <>
      <PageHeader
        title="Threads"
        description="Conversations, most recent activity first. Each thread belongs to one inbox."
      />
      <div className="space-y-4">
        <FilterForm action="/threads" label="Search and filter threads" className="flex flex-wrap items-end gap-3">
          <div className="w-72 max-w-full">
            <Field
              label="Search"
              name="q"
              type="search"
              defaultValue={q ?? ""}
              placeholder="Subject"
              autoComplete="off"
              maxLength={200}
            />
          </div>
          {inboxes.length > 0 ? (
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
          ) : null}
          {q || filters.inboxId ? (
            <Link className="link self-center text-sm" href="/threads">
              Clear filters
            </Link>
          ) : null}
        </FilterForm>

        {!page.ok ? (
          <ErrorNotice>
            {page.message}{" "}
            <Link className="link" href="/threads">
              Show the newest
            </Link>
          </ErrorNotice>
        ) : threads.length === 0 ? (
          <EmptyState
            title={q ? `No threads match “${q}”` : filters.inboxId ? "No threads in this inbox" : "No threads yet"}
            description={
              cursor ? "There is nothing older." : "A thread starts when an inbox sends or receives a message."
            }
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
            <Table
              head={["Subject", "Inbox", "Latest", "Participants", "Messages", "Last activity"]}
              caption={filtered ? `Threads of ${filtered}` : "Threads"}
            >
              {threads.map((t) => {
                const summary = summaries.get(t.id);
                const inbox = addressOf.get(t.inboxId);
                return (
                  <tr key={t.id}>
                    <Td className="max-w-xs">
                      <Link className="link break-words" href={`/threads/${t.id}`}>
                        {subjectOf(t.subject)}
                      </Link>
                      {summary?.last?.preview ? (
                        <span className="block truncate text-xs text-zinc-600 dark:text-zinc-400">
                          {summary.last.preview}
                        </span>
                      ) : null}
                    </Td>
                    <Td className="break-all">{inbox ?? <Mono>{t.inboxId}</Mono>}</Td>
                    <Td>
                      {summary?.last ? (
                        <span
                          title={
                            summary.last.direction === "inbound"
                              ? `Received from ${summary.last.from}`
                              : `Sent by ${summary.last.from}`
                          }
                        >
                          <Badge tone={summary.last.direction === "inbound" ? "blue" : "gray"}>
                            {summary.last.direction === "inbound" ? "received" : "sent"}
                          </Badge>
                        </span>
                      ) : (
                        "—"
                      )}
                    </Td>
                    <Td className="break-words">
                      {formatAddresses((summary?.participants ?? []).filter((a) => a !== inbox))}
                    </Td>
                    <Td className="tabular-nums">{t.messageCount}</Td>
                    <Td>
                      <Time value={t.lastMessageAt} />
                    </Td>
                  </tr>
                );
              })}
            </Table>
            <Pager {...pagerLinks("/threads", filters, cursor, page.data.pagination.nextCursor)} />
          </>
        )}
      </div>
    </>
  );
}
