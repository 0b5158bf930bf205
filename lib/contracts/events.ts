import { z } from "zod";
import { defineContract } from "@/lib/api/contract";
import { EVENT_TYPES } from "@/lib/events/ledger";
import { isoDate } from "./common";

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
    "The durable, ordered ledger. Page forward from a cursor (`since`, alias `cursor`) until `nextCursor` is null; `order=newest` pages back from the most recent. `wait` (0..12 s) long-polls: it returns at once when events are waiting, else on the first matching append or with an empty page at the deadline. `tail=true` returns no events and the head cursor. `gaps` lists, per partition, sequence numbers missing between the page's events (on filtered reads the excluded events appear as gaps).",
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
