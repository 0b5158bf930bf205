import { z } from "zod";
import { type ContractSpec, defineContract } from "@/lib/core/contract";
import { paginationQuery } from "@/lib/core/pagination";
import { EVENT_TYPES } from "@/lib/events/contracts";
import { isoDate, paginationSchema, uuidParam } from "@/lib/core/schemas";

/** Every event type the ledger carries can be subscribed to. */
const SUBSCRIBABLE = EVENT_TYPES;

export const webhookSchema = z.object({
  object: z.literal("webhook"),
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  status: z.enum(["active", "paused"]),
  createdAt: isoDate,
  label: z.string().nullable(),
  lastDeliveryAt: isoDate.nullable(),
  secondarySecretExpiresAt: isoDate.nullable(),
  secondarySecretActive: z.boolean(),
  consecutiveFailures: z.int(),
  pausedReason: z.string().nullable(),
  autoPaused: z.boolean(),
  autoPausedAt: isoDate.nullable(),
  /** Deliveries per second the endpoint accepts (null: no limit). */
  rateLimitPerSecond: z.int().nullable(),
});

export const deliverySchema = z.object({
  id: z.uuid(),
  webhookId: z.uuid(),
  eventId: z.string(),
  eventType: z.string(),
  attempt: z.int(),
  status: z.enum(["succeeded", "failed", "pending"]),
  responseStatus: z.int().nullable(),
  durationMs: z.int().nullable(),
  error: z.string().nullable(),
  /** The first 1,024 characters of the response body. */
  responseSnippet: z.string().nullable(),
  /** Response headers (up to 40, values cut at 512 characters; `set-cookie` left out). */
  responseHeaders: z.record(z.string(), z.string()).nullable(),
  /** The request as sent: headers with the signature (never the secret) and the body (the first 8,192 characters). Null when no request was made (URL refused, endpoint paused). */
  request: z
    .object({
      method: z.literal("POST"),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.string(),
      bodyTruncated: z.boolean(),
    })
    .nullable(),
  replay: z.boolean(),
  createdAt: isoDate,
});

const url = z.string().min(1).max(2048);
const eventsField = z.array(z.enum(SUBSCRIBABLE)).min(1).max(SUBSCRIBABLE.length);
const label = z.string().trim().min(1).max(120).nullable();
/** The largest `rateLimitPerSecond` (the console's input takes the same bounds). */
export const WEBHOOK_RATE_LIMIT_MAX = 10_000;
/** Deliveries per second the endpoint accepts (null: no limit); paced across processes, never dropped. */
const rateLimitPerSecond = z.int().min(1).max(WEBHOOK_RATE_LIMIT_MAX).nullable();
const params = z.strictObject({ webhookId: uuidParam });
const one = z.object({ webhook: webhookSchema });
const withSecret = z.object({ webhook: webhookSchema, secret: z.string() });
const tag = "Webhooks";

export const listWebhooks = defineContract({
  id: "listWebhooks",
  method: "GET",
  path: "/v1/webhooks",
  access: "webhooks:read",
  tag,
  summary: "List webhooks",
  response: z.object({ webhooks: z.array(webhookSchema) }),
});

export const createWebhook = defineContract({
  id: "createWebhook",
  method: "POST",
  path: "/v1/webhooks",
  access: "webhooks:write",
  tag,
  summary: "Create a webhook",
  description:
    "An HTTPS endpoint (public addresses only) that receives the subscribed events as signed POSTs: Standard Webhooks headers `webhook-id` (the event id), `webhook-timestamp`, `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`), the same value in `X-Svc-Signature`; body `{eventId, type, createdAt, data}`. The `whsec_` secret is returned only here and at rotation.",
  body: z.strictObject({
    url,
    events: eventsField,
    label: label.optional(),
    rateLimitPerSecond: rateLimitPerSecond.optional(),
  }),
  example: { url: "https://example.com/hooks/svc", events: ["message.received"] },
  response: withSecret,
  secretFields: ["secret"],
  errors: ["idempotency_key_replay_secret"],
});

export const getWebhook = defineContract({
  id: "getWebhook",
  method: "GET",
  path: "/v1/webhooks/{webhookId}",
  access: "webhooks:read",
  tag,
  summary: "Get a webhook",
  params,
  response: one,
});

export const updateWebhook = defineContract({
  id: "updateWebhook",
  method: "PATCH",
  path: "/v1/webhooks/{webhookId}",
  access: "webhooks:write",
  tag,
  summary: "Update a webhook",
  params,
  body: z
    .strictObject({
      url: url.optional(),
      events: eventsField.optional(),
      label: label.optional(),
      rateLimitPerSecond: rateLimitPerSecond.optional(),
    })
    .refine((v) => Object.keys(v).length > 0, {
      message: "Give at least one of url, events, label, rateLimitPerSecond.",
    }),
  example: { label: "production" },
  response: one,
});

export const deleteWebhook = defineContract({
  id: "deleteWebhook",
  method: "DELETE",
  path: "/v1/webhooks/{webhookId}",
  access: "webhooks:write",
  tag,
  summary: "Delete a webhook",
  params,
  response: z.object({ deleted: z.literal(true), id: z.uuid() }),
});

const action = <const Id extends string, R extends z.ZodType>(
  id: Id,
  path: string,
  summary: string,
  description: string,
  response: R,
  extra: Pick<ContractSpec, "secretFields" | "errors"> = {},
) =>
  defineContract({
    id,
    method: "POST",
    path: `/v1/webhooks/{webhookId}/${path}`,
    access: "webhooks:write",
    tag,
    summary,
    description,
    params,
    response,
    ...extra,
  });

export const pauseWebhook = action(
  "pauseWebhook",
  "pause",
  "Pause a webhook",
  "Stops deliveries; failed ones can be redriven after resume.",
  one,
);
export const resumeWebhook = action(
  "resumeWebhook",
  "resume",
  "Resume a webhook",
  "`paused` → `active`; clears the circuit breaker.",
  one,
);
export const redriveWebhook = action(
  "redriveWebhook",
  "redrive",
  "Redrive failed deliveries",
  "Re-sends every event whose deliveries to this endpoint failed and never succeeded (409 while paused).",
  z.object({ webhookId: z.uuid(), redriven: z.int() }),
  { errors: ["conflict"] },
);
export const testWebhook = action(
  "testWebhook",
  "test",
  "Send a test ping",
  "A signed `webhook.test` event, sent now and logged.",
  z.object({ delivery: deliverySchema }),
);
export const rotateWebhookSecret = action(
  "rotateWebhookSecret",
  "rotate-secret",
  "Rotate the signing secret",
  "Returns the new secret. Until `secondarySecretExpiresAt` deliveries carry both signatures, space-separated.",
  withSecret,
  { secretFields: ["secret"], errors: ["idempotency_key_replay_secret"] },
);

export const listWebhookDeliveries = defineContract({
  id: "listWebhookDeliveries",
  method: "GET",
  path: "/v1/webhooks/{webhookId}/deliveries",
  access: "webhooks:read",
  tag,
  summary: "Delivery log",
  description:
    "Every attempt, newest first: event, attempt number, status, response code, duration, error, the request as sent (headers with the signature, body up to 8,192 characters) and the response (headers, the first 1,024 characters of the body).",
  params,
  query: z.strictObject(paginationQuery()),
  response: z.object({ object: z.literal("list"), data: z.array(deliverySchema), pagination: paginationSchema }),
});
