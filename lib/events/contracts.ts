import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { dateTimeInput, isoDate } from "@/lib/core/schemas";

/** Every event type the product emits into the ledger (and delivers to webhooks). */
export const EVENT_TYPES = [
  "message.received",
  "message.quarantined",
  "message.sent",
  "message.delivered",
  "message.bounced",
  "message.complained",
  "message.delayed",
  "button_tap",
  "budget.tripped",
  "compliance.erasure.completed",
  "subprocessor.changed",
  "object.scanned",
  "share_link.opened",
  "letter.status_changed",
  "call.status_changed",
  "domain.verified",
  "verification.resolved",
  "verification.expired",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The event types this build appends to the ledger (and so can deliver to webhooks); the rest of
 * EVENT_TYPES belong to capabilities that do not exist yet. `appendEvent` accepts only these, so a
 * new emitter must add its type here — the console's pickers offer exactly this list.
 */
export const EMITTED_EVENT_TYPES = [
  "message.received",
  "message.quarantined",
  "message.sent",
  "message.delivered",
  "message.delayed",
  "message.bounced",
  "message.complained",
  "button_tap",
  "domain.verified",
  "object.scanned",
  "share_link.opened",
  "budget.tripped",
  "subprocessor.changed",
  "compliance.erasure.completed",
  "call.status_changed",
  "verification.resolved",
  "verification.expired",
  "letter.status_changed",
] as const satisfies readonly EventType[];
export type EmittedEventType = (typeof EMITTED_EVENT_TYPES)[number];

const boolQuery = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

export const streamEntrySchema = z.object({
  object: z.literal("event"),
  eventId: z.string(),
  type: z.string(),
  seq: z.int(),
  partitionKey: z.string(),
  inboxId: z.uuid().nullable(),
  threadId: z.uuid().nullable(),
  idempotencyKey: z.string().nullable(),
  outboundMessageId: z.uuid().nullable(),
  messageId: z.uuid().nullable(),
  providerMessageId: z.string().nullable(),
  occurredAt: isoDate,
  createdAt: isoDate,
  data: z.record(z.string(), z.unknown()),
});

export const listEvents = defineContract({
  id: "listEvents",
  method: "GET",
  path: "/v1/events",
  access: "events:read",
  tag: "Events",
  summary: "Read the event stream",
  description:
    "The durable, ordered ledger. Page forward from a cursor (`since`, alias `cursor`) until `nextCursor` is null; cursors are opaque and bound to the organization (an altered or foreign cursor is 400); `order=newest` pages back from the most recent. `wait` (0..12 s) long-polls: it returns at once when events are waiting, else on the first matching append or with an empty page at the deadline. `tail=true` returns no events and the head cursor. `gaps` lists, per partition, sequence numbers missing between the page's events (on filtered reads the excluded events appear as gaps).",
  query: z.strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    since: z.string().min(1).max(200).optional(),
    cursor: z.string().min(1).max(200).optional(),
    inboxId: z.uuid().optional(),
    type: z.enum(EVENT_TYPES).optional(),
    idempotencyKey: z.string().min(1).max(255).optional(),
    order: z.enum(["oldest", "newest"]).default("oldest"),
    wait: z.coerce.number().int().min(0).max(12).default(0),
    tail: boolQuery.default(false),
  }),
  response: z.object({
    object: z.literal("list"),
    data: z.array(streamEntrySchema),
    pagination: z.object({ nextCursor: z.string().nullable(), hasMore: z.boolean() }),
    gaps: z.array(z.object({ partitionKey: z.string(), missingSeq: z.array(z.int()) })),
  }),
});

const eventRef = z.object({ eventId: z.string(), seq: z.int(), partitionKey: z.string(), createdAt: isoDate });

export const replayEvents = defineContract({
  id: "replayEvents",
  method: "POST",
  path: "/v1/events/replay",
  access: "events:write",
  tag: "Events",
  summary: "Replay events to webhooks",
  description:
    "Exactly one lower bound (`since` cursor, `sinceSeq` with `inboxId`, or `sinceTimestamp`); optional `until`, `types`, `inboxId`, `webhookId` (a paused or unknown one is 404) and `maxEvents` (1..5000, default 1000; a larger slice is refused). Events go to active webhooks re-matched on their types, in `(partitionKey, seq)` order, with their original ids; `skipped` counts events no webhook subscribes to.",
  body: z.strictObject({
    since: z.string().min(1).max(200).optional(),
    sinceSeq: z.int().min(1).optional(),
    sinceTimestamp: dateTimeInput().optional(),
    until: dateTimeInput().optional(),
    types: z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length).optional(),
    inboxId: z.uuid().optional(),
    webhookId: z.uuid().optional(),
    maxEvents: z.int().min(1).max(5000).default(1000),
  }),
  example: { sinceTimestamp: "2026-01-01T00:00:00Z", types: ["message.received"] },
  errors: ["resource_not_found"],
  response: z.object({ replayed: z.int(), skipped: z.int(), from: eventRef.nullable(), to: eventRef.nullable() }),
});

export const waitForMessage = defineContract({
  id: "waitForMessage",
  method: "GET",
  // Not served over HTTP (`GET /v1/events?type=message.received&wait=…` is the HTTP form); the MCP tool and nominal path.
  path: "/v1/events/next-message",
  access: "events:read",
  tag: "Events",
  summary: "Wait for the next inbound message",
  description:
    "Long-polls the event stream for the next `message.received` event (of one inbox with `inboxId`) after `since`, or after the call started when `since` is absent; gives up after `timeoutSeconds` (1..120, default 30) with `event: null`. Pass the returned `cursor` as `since` to wait for the one after. Read the message itself with `get_message` (`messages:read`).",
  query: z.strictObject({
    inboxId: z.uuid().optional(),
    since: z.string().min(1).max(200).optional(),
    timeoutSeconds: z.coerce.number().int().min(1).max(120).default(30),
  }),
  response: z.object({ event: streamEntrySchema.nullable(), cursor: z.string().nullable() }),
});
