import Link from "next/link";
import { FilterForm } from "@/components/console/filter-form";
import { EventTail } from "@/components/console/observe/event-tail";
import { Select } from "@/components/console/form";
import { ErrorNotice, NoAccess, PageHeader, Pager } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readList } from "@/lib/console/pages";
import { latestEvents } from "@/lib/console/events-tail";
import { EVENT_TYPES, type EventType } from "@/lib/events/ledger";
import { EMITTED_EVENT_TYPES } from "@/lib/events/contracts";

export const metadata = { title: "Events — svc console" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined) => (typeof v === "string" && v !== "" ? v : undefined);
const isEventType = (v: string | undefined): v is EventType =>
  v !== undefined && (EVENT_TYPES as readonly string[]).includes(v);

/** The organization's event stream: the newest 50 server-rendered, then a live long-poll tail. */
export default async function EventsPage({ searchParams }: { searchParams: SearchParams }) {
  const ctx = await getConsole();
  if (!ctx.can("events:read")) return <NoAccess what="events" />;
  const params = await searchParams;
  const rawType = one(params.type);
  const type = isEventType(rawType) ? rawType : undefined;
  const before = one(params.before);
  const href = (q: Record<string, string | undefined>) => {
    const s = new URLSearchParams(
      Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    return s ? `/events?${s}` : "/events";
  };

  const read = await readList(() => latestEvents(ctx, { type, before }));
  const page = read.ok ? read.data : null;
  const problem = read.ok ? null : read.message;

  return (
    <>
      <PageHeader
        title="Events"
        description="The organization's event ledger as it happens: message received, sent, delivered, bounced, complained; domain verified. The same stream GET /v1/events and webhooks read."
      />
      <FilterForm action="/events" className="mb-4 flex flex-wrap items-end gap-3" label="Filter events">
        <div className="w-64">
          <Select label="Event type" name="type" defaultValue={type ?? ""} data-testid="events-type-filter">
            <option value="">All types</option>
            {EMITTED_EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </Select>
        </div>
        {type ? (
          <Link className="link mb-2 text-sm" href="/events">
            Clear filter
          </Link>
        ) : null}
      </FilterForm>
      {rawType && !type ? <ErrorNotice>Unknown event type “{rawType}”; showing all types.</ErrorNotice> : null}
      {problem ? <ErrorNotice>{problem}</ErrorNotice> : null}
      {page ? (
        <>
          {before ? (
            <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
              Showing older events.{" "}
              <Link className="link" href={href({ type })}>
                Back to the live tail
              </Link>
            </p>
          ) : null}
          <EventTail
            key={`${ctx.org.id}:${type ?? ""}:${before ?? ""}`}
            orgId={ctx.org.id}
            type={type ?? null}
            initialEvents={page.events}
            headCursor={page.headCursor}
            canStream={!before}
          />
          <Pager
            nextHref={page.olderCursor ? href({ type, before: page.olderCursor }) : null}
            firstHref={before ? href({ type }) : null}
          />
        </>
      ) : null}
    </>
  );
}
