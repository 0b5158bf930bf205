import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isoDate, uuidParam } from "@/lib/core/schemas";
import { fromHintSchema } from "./hint";

export const verificationWaitSchema = z.object({
  object: z.literal("verification_wait"),
  waitId: z.uuid(),
  inboxId: z.uuid(),
  status: z.enum(["pending", "resolved", "expired"]),
  expiresAt: isoDate,
  createdAt: isoDate,
  agentId: z.uuid().nullable(),
  fromHint: z.string().nullable(),
  instruction: z.string().nullable(),
  result: z.string().nullable().describe("The extracted code or link, once resolved."),
  resultKind: z.enum(["code", "link"]).nullable().describe("Whether `result` is a code or a link."),
  from: z.string().nullable().describe("The From address of the message that resolved the wait."),
  messageId: z.uuid().nullable(),
  idempotencyKey: z.string().nullable(),
  resolvedAt: isoDate.nullable(),
  expiredAt: isoDate.nullable(),
});
export type VerificationWait = z.infer<typeof verificationWaitSchema>;

export const registerVerificationWaitBody = z.strictObject({
  timeoutSec: z.int().min(30).max(1800).describe("Seconds until the wait expires (`expiresAt` = now + timeoutSec)."),
  fromHint: fromHintSchema.nullable().optional(),
  instruction: z
    .string()
    .max(2000)
    .nullable()
    .optional()
    .describe('What to extract ("the 6-digit code", "the sign-in link"); absent: any verification code.'),
  idempotencyKey: z.string().min(1).max(255).nullable().optional().describe("The same key returns the same wait."),
});

export const registerVerificationWait = defineContract({
  id: "registerVerificationWait",
  method: "POST",
  path: "/v1/inboxes/{inboxId}/waits",
  access: "messages:read",
  tag: "Waits",
  summary: "Wait for a verification code",
  description:
    "Registers a durable wait for the next inbound message of the inbox (any channel) that carries a verification code or link, from an authenticated sender matching `fromHint` (an exact address, or a domain and its subdomains). Messages of the last 15 seconds count too. Poll `GET /v1/waits/{waitId}` or listen for `verification.resolved` / `verification.expired`.",
  params: z.strictObject({ inboxId: uuidParam }),
  body: registerVerificationWaitBody,
  response: verificationWaitSchema,
  successStatus: 201,
  example: { timeoutSec: 300, fromHint: "example.com", instruction: "the 6-digit code", idempotencyKey: "signup-42" },
  errors: ["conflict"],
});

export const getVerificationWait = defineContract({
  id: "getVerificationWait",
  method: "GET",
  path: "/v1/waits/{waitId}",
  access: "messages:read",
  tag: "Waits",
  summary: "Get a verification wait",
  params: z.strictObject({ waitId: uuidParam }),
  response: verificationWaitSchema,
});

export const listVerificationWaits = defineContract({
  id: "listVerificationWaits",
  method: "GET",
  path: "/v1/inboxes/{inboxId}/waits",
  access: "messages:read",
  tag: "Waits",
  summary: "List an inbox's verification waits",
  description: "The inbox's waits, newest first (at most 100).",
  params: z.strictObject({ inboxId: uuidParam }),
  response: z.object({ waits: z.array(verificationWaitSchema) }),
});

export const cancelVerificationWait = defineContract({
  id: "cancelVerificationWait",
  method: "POST",
  path: "/v1/waits/{waitId}/cancel",
  access: "messages:read",
  tag: "Waits",
  summary: "Cancel a verification wait",
  description: "A pending wait becomes `expired` (with `verification.expired`); a settled wait is answered as it is.",
  params: z.strictObject({ waitId: uuidParam }),
  response: verificationWaitSchema,
});

export const waitForCode = defineContract({
  id: "waitForCode",
  method: "POST",
  // Not served over HTTP (register, then poll `GET /v1/waits/{waitId}`); the MCP tool and nominal path.
  path: "/v1/inboxes/{inboxId}/waits/next-code",
  access: "messages:read",
  tag: "Waits",
  summary: "Wait for a verification code",
  description:
    "Registers a verification wait (as `POST /v1/inboxes/{inboxId}/waits`) and long-polls it for up to `waitSeconds` (1..120, default 60). Answers the wait: `resolved` with `result` (the code or link), `expired`, or still `pending` — call again with the same `idempotencyKey` to keep waiting on the same wait.",
  params: z.strictObject({ inboxId: uuidParam }),
  body: registerVerificationWaitBody.extend({
    waitSeconds: z.int().min(1).max(120).default(60).describe("How long this call blocks."),
  }),
  idempotent: false,
  example: { timeoutSec: 300, fromHint: "example.com", idempotencyKey: "signup-42", waitSeconds: 60 },
  response: verificationWaitSchema,
  errors: ["conflict"],
});
