import Link from "next/link";
import { Field, Select } from "@/components/console/form";
import { FilterForm } from "@/components/console/filter-form";
import { formatAddresses, formatSender, subjectOf } from "@/components/console/messaging/format";
import { hrefWith, PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import {
  Address,
  Badge,
  DeliveryStatusBadge,
  EmptyState,
  ErrorNotice,
  NoAccess,
  PageHeader,
  Pager,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { CHANNEL_DEFINITIONS, channelDefinition } from "@/lib/channels/definitions";
import { getConsole } from "@/lib/console/context";
import { messageMoment } from "@/lib/console/message-status";
import { listMessages as listMessagesContract } from "@/lib/messages/contracts";
import { listInboxes } from "@/lib/inboxes/operations";
import { DELIVERY_STATUSES } from "@/lib/messages/delivery-status";
import { listMessages } from "@/lib/messages/operations";

export const metadata = { title: "Messages — svc console" };

/** The URL's filters, each only when given (an empty select means "any"). */
function filtersOf(sp: SearchParams) {
  return {
    q: param(sp, "q"),
    inboxId: param(sp, "inboxId"),
    threadId: param(sp, "threadId"),
    direction: param(sp, "direction"),
    channel: param(sp, "channel"),
    status: param(sp, "status"),
  };
}

/** Inbound and outbound messages, newest first, searched and filtered by inbox, direction, channel and status; 50 a page. */
export default async function MessagesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) {
    return <NoAccess title="Messages" what="messages" />;
  }
  const sp = await searchParams;
  const filters = filtersOf(sp);
  const cursor = param(sp, "cursor");
  // The URL is checked with the API's own query schema, so a bad filter reads as the API would say it.
  const { status, ...rest } = filters;
  const query = listMessagesContract.query.safeParse({ ...rest, deliveryStatus: status, cursor, limit: PAGE_SIZE });
  const [page, inboxes] = await Promise.all([
    query.success
      ? readList(() => ctx.invoke(listMessages, { query: query.data }))
      : Promise.resolve({
          ok: false as const,
          message: `The ${query.error.issues[0]?.path.map((p) => (p === "deliveryStatus" ? "status" : String(p))).join(".") ?? "filter"} filter is not valid.`,
        }),
    ctx.can("inboxes:read") ? ctx.invoke(listInboxes).then((r) => r.inboxes) : Promise.resolve([]),
  ]);
  const messages = page.ok ? page.data.messages : [];
  const addressOf = new Map(inboxes.map((i) => [i.id, i.address]));
  const anyFilter = Object.values(filters).some((v) => v !== undefined);

  return (
    <>
      <PageHeader
        title="Messages"
        description="Every message sent or received by this organization's inboxes, newest first."
      />
      <div className="space-y-4">
        <FilterForm action="/messages" label="Search and filter messages" className="flex flex-wrap items-end gap-3">
          {filters.threadId ? <input type="hidden" name="threadId" value={filters.threadId} /> : null}
          <div className="w-72 max-w-full">
            <Field
              label="Search"
              name="q"
              type="search"
              defaultValue={filters.q ?? ""}
              placeholder="Subject, sender or recipient"
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
          <div className="w-40">
            <Select label="Direction" name="direction" defaultValue={filters.direction ?? ""}>
              <option value="">Any</option>
              <option value="inbound">inbound</option>
              <option value="outbound">outbound</option>
            </Select>
          </div>
          <div className="w-40">
            <Select label="Channel" name="channel" defaultValue={filters.channel ?? ""}>
              <option value="">Any</option>
              {CHANNEL_DEFINITIONS.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.id}
                </option>
              ))}
            </Select>
          </div>
          <div className="w-44">
            <Select label="Status" name="status" defaultValue={filters.status ?? ""}>
              <option value="">Any</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          </div>
          {anyFilter ? (
            <Link className="link self-center text-sm" href="/messages">
              Clear filters
            </Link>
          ) : null}
        </FilterForm>
        {filters.threadId ? (
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            Only the messages of{" "}
            <Link className="link" href={`/threads/${filters.threadId}`}>
              one thread
            </Link>
            .
          </p>
        ) : null}

        {!page.ok ? (
          <ErrorNotice>
            {page.message}{" "}
            <Link className="link" href="/messages">
              Show the newest
            </Link>
          </ErrorNotice>
        ) : messages.length === 0 ? (
          <EmptyState
            title={filters.q ? `No messages match “${filters.q}”` : anyFilter ? "No messages match" : "No messages yet"}
            description={
              cursor
                ? "There is nothing older."
                : anyFilter
                  ? "Try other filters."
                  : "Messages appear here when an inbox sends or receives one."
            }
            action={
              cursor ? (
                <Link className="link" href={hrefWith("/messages", filters)}>
                  Show the newest
                </Link>
              ) : undefined
            }
          />
        ) : (
          <>
            <Table head={["Subject", "Status", "From", "To", "Inbox", "Direction", "When"]} caption="Messages">
              {messages.map((m) => (
                <tr key={m.id}>
                  <Td className="max-w-xs">
                    <Link className="link break-words" href={`/messages/${m.id}`}>
                      {subjectOf(m.subject)}
                    </Link>
                    {m.textPreview ? (
                      <span className="block truncate text-xs text-zinc-600 dark:text-zinc-400">{m.textPreview}</span>
                    ) : null}
                  </Td>
                  <Td>
                    <DeliveryStatusBadge status={m.deliveryStatus} />
                  </Td>
                  <Td className="max-w-56">
                    <Address value={formatSender(m.from)} />
                  </Td>
                  <Td className="max-w-56">
                    <Address value={formatAddresses(m.to)} />
                  </Td>
                  <Td className="max-w-56">
                    <Address value={addressOf.get(m.inboxId) ?? "—"} />
                  </Td>
                  <Td>
                    <Badge tone={m.direction === "inbound" ? "blue" : "gray"}>{m.direction}</Badge>
                    {channelDefinition(m.channel).badge ? (
                      <span className="ml-1">
                        <Badge>{channelDefinition(m.channel).badge}</Badge>
                      </span>
                    ) : null}
                  </Td>
                  <Td>
                    <span className="text-zinc-600 dark:text-zinc-400">{messageMoment(m).label}</span>{" "}
                    <Time value={messageMoment(m).at} />
                  </Td>
                </tr>
              ))}
            </Table>
            <Pager {...pagerLinks("/messages", filters, cursor, page.data.pagination.nextCursor)} />
          </>
        )}
      </div>
    </>
  );
}
