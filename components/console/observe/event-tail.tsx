"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import type { StreamEntry, TailPage } from "@/lib/console/events-tail";
import { eventSummary, shortId } from "@/lib/console/event-summary";
import { CopyButton } from "../copy-button";
import { Button } from "../form";
import { EmptyState, ErrorNotice, Mono, Table, Td, Time } from "../ui";
import { JsonDetails } from "./json-details";

/** Rows kept in the browser; older ones drop off the bottom (page back with "Older" instead). */
const MAX_ROWS = 500;

class TailError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** One long-poll read of the console tail endpoint after `cursor`. */
async function fetchTail(
  orgId: string,
  type: string | null,
  cursor: string | null,
  signal: AbortSignal,
): Promise<TailPage> {
  const query = new URLSearchParams({ org: orgId });
  if (type) query.set("type", type);
  if (cursor) query.set("cursor", cursor);
  const res = await fetch(`/console/api/events?${query.toString()}`, {
    signal,
    cache: "no-store",
    headers: { accept: "application/json" },
  });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const message =
      body &&
      typeof body === "object" &&
      "error" in body &&
      body.error &&
      typeof body.error === "object" &&
      "message" in body.error
        ? String(body.error.message)
        : `The event stream answered ${res.status}.`;
    throw new TailError(message, res.status);
  }
  return body as TailPage;
}

/** Resolves after `ms`, or at once when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A console page an event concerns: what it is, its id, and where it opens. */
export interface EventLink {
  kind: "message" | "thread" | "inbox" | "domain";
  id: string;
  href: string;
}

const PAGES: Record<EventLink["kind"], string> = {
  message: "/messages",
  thread: "/threads",
  inbox: "/inboxes",
  domain: "/domains",
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The resources an event concerns, each once, most specific first: its message, thread, inbox (or partition's inbox), domain. */
export function eventLinks(
  e: Pick<StreamEntry, "messageId" | "outboundMessageId" | "threadId" | "inboxId" | "partitionKey" | "data">,
): EventLink[] {
  const [partitionKind = "", partitionId = ""] = e.partitionKey.split(":");
  const domainId =
    typeof e.data.domainId === "string" ? e.data.domainId : partitionKind === "domain" ? partitionId : null;
  const candidates: [EventLink["kind"], string | null][] = [
    ["message", e.messageId ?? e.outboundMessageId],
    ["thread", e.threadId],
    ["inbox", e.inboxId ?? (partitionKind === "inbox" ? partitionId : null)],
    ["domain", domainId],
  ];
  const seen = new Set<string>();
  const links: EventLink[] = [];
  for (const [kind, id] of candidates) {
    if (!id || !UUID.test(id) || seen.has(`${kind}:${id}`)) continue;
    seen.add(`${kind}:${id}`);
    links.push({ kind, id, href: `${PAGES[kind]}/${id}` });
  }
  return links;
}

const LABEL: Record<EventLink["kind"], string> = {
  message: "Message",
  thread: "Thread",
  inbox: "Inbox",
  domain: "Domain",
};

export function EventRow({ event }: { event: StreamEntry }) {
  const links = eventLinks(event);
  const summary = eventSummary(event.type, event.data);
  return (
    <tr data-testid="event-row" data-event-id={event.eventId}>
      <Td>
        <Mono>{event.type}</Mono>
        <span className="mt-1 flex flex-wrap items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
          <span className="font-mono" title={event.eventId} data-testid="event-id">
            {shortId(event.eventId)}
          </span>
          <CopyButton value={event.eventId} label="Copy id" />
        </span>
      </Td>
      <Td>
        <Time value={event.occurredAt} />
      </Td>
      <Td className="max-w-sm">
        {summary.title || summary.detail ? (
          <p className="text-sm break-words" data-testid="event-summary">
            {summary.title ? <span className="font-medium">{summary.title}</span> : null}
            {summary.title && summary.detail ? " " : null}
            {summary.detail ? <span className="text-zinc-700 dark:text-zinc-300">{summary.detail}</span> : null}
          </p>
        ) : null}
        {links.length > 0 ? (
          <ul className="space-y-0.5 text-sm" aria-label="Concerns">
            {links.map((l) => (
              <li key={l.kind}>
                <Link className="link" href={l.href} title={l.id}>
                  {LABEL[l.kind]} <span className="font-mono text-xs">{shortId(l.id)}</span>
                </Link>
              </li>
            ))}
          </ul>
        ) : summary.title || summary.detail ? null : (
          <span className="text-zinc-600 dark:text-zinc-400">—</span>
        )}
      </Td>
      <Td>
        <span className="font-mono text-xs break-all" title={event.partitionKey}>
          {event.partitionKey.split(":")[0]}
        </span>
        <span className="block text-xs text-zinc-600 tabular-nums dark:text-zinc-400">seq {event.seq}</span>
      </Td>
      <Td>
        <JsonDetails
          value={event.data}
          summary={
            <>
              Data<span className="sr-only"> of {event.eventId}</span>
            </>
          }
        />
      </Td>
    </tr>
  );
}

/**
 * The live tail: starts from the server-rendered newest events and long-polls the console endpoint
 * from the head cursor, prepending what arrives (repeats dropped by `eventId`). "Live"/"Paused"
 * stops and resumes the loop; a failed read retries with backoff, and a lost session stops it.
 */
export function EventTail({
  orgId,
  type,
  initialEvents,
  headCursor,
  canStream,
}: {
  orgId: string;
  type: string | null;
  initialEvents: StreamEntry[];
  headCursor: string | null;
  /** False when the page shows older events (nothing new belongs above them). */
  canStream: boolean;
}) {
  const [events, setEvents] = useState(initialEvents);
  const [live, setLive] = useState(canStream);
  const [error, setError] = useState<string | null>(null);
  const [arrived, setArrived] = useState(0);
  const cursor = useRef(headCursor);

  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    const loop = async () => {
      let failures = 0;
      while (!controller.signal.aborted) {
        try {
          const page = await fetchTail(orgId, type, cursor.current, controller.signal);
          failures = 0;
          setError(null);
          cursor.current = page.cursor;
          if (page.data.length > 0) {
            const fresh = [...page.data].reverse();
            setArrived((n) => n + page.data.length);
            setEvents((prev) => {
              const seen = new Set(fresh.map((e) => e.eventId));
              return [...fresh, ...prev.filter((e) => !seen.has(e.eventId))].slice(0, MAX_ROWS);
            });
          }
        } catch (err) {
          if (controller.signal.aborted) return;
          failures += 1;
          setError(err instanceof Error ? err.message : "Reading the event stream failed.");
          if (err instanceof TailError && (err.status === 400 || err.status === 401 || err.status === 403)) {
            setLive(false);
            return;
          }
          await pause(Math.min(30_000, 1_000 * 2 ** failures), controller.signal);
        }
      }
    };
    void loop();
    return () => controller.abort();
  }, [live, orgId, type]);

  return (
    <div className="space-y-3">
      {canStream ? (
        <div className="flex flex-wrap items-center gap-3">
          <Button
            type="button"
            variant={live ? "primary" : "secondary"}
            onClick={() => setLive((v) => !v)}
            data-testid="events-live-toggle"
            title={live ? "Pause the live tail" : "Resume the live tail"}
          >
            <span
              aria-hidden
              className={live ? "size-2 animate-pulse rounded-full bg-emerald-400" : "size-2 rounded-full bg-zinc-400"}
            />
            {live ? "Live" : "Paused"}
          </Button>
          <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="events-live-status">
            {live
              ? "Waiting for new events; they appear at the top. Select to pause."
              : "Paused: new events are not shown. Select to resume."}
          </p>
          <p
            role="status"
            className="text-sm text-zinc-600 tabular-nums dark:text-zinc-400"
            data-testid="events-arrived"
          >
            {arrived > 0 ? `${arrived} new event${arrived === 1 ? "" : "s"} since the page loaded.` : ""}
          </p>
        </div>
      ) : null}
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
      {events.length === 0 ? (
        <EmptyState
          title={type ? `No ${type} events yet` : "No events yet"}
          description={
            canStream && live
              ? "Events appear here as they happen: messages received, sent, delivered, bounced; domains verified."
              : "Events appear here as they happen."
          }
        />
      ) : (
        <Table head={["Type and id", "Time", "Concerns", "Stream / seq", "Data"]} caption="Events, newest first">
          {events.map((e) => (
            <EventRow key={e.eventId} event={e} />
          ))}
        </Table>
      )}
    </div>
  );
}
