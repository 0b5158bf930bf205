import { z } from "zod";
import type { Contract } from "./contract";
import { ERROR_CODES, type ErrorCode } from "./errors";

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return out;
}

function parameters(schema: z.ZodObject | undefined, where: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const json = schemaOf(schema, "input");
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    ...(typeof s.description === "string" ? { description: s.description } : {}),
    schema: s,
  }));
}

const errorSchema: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["type", "code", "message", "param"],
      properties: {
        type: { type: "string" },
        code: { type: "string", enum: Object.keys(ERROR_CODES) },
        message: { type: "string" },
        param: {
          type: "string",
          description:
            'The parameter at fault (`body.field`, a query or path parameter, a header), or "" when none is.',
        },
      },
    },
  },
};

const errorResponse = (description: string, codes: readonly ErrorCode[]) => ({
  description,
  "x-svc-error-codes": codes,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** An error an operation can answer with, and when. */
export interface DeclaredError {
  code: ErrorCode;
  status: number;
  when: string;
}

const hasBody = (c: Contract) => c.method === "POST" || c.method === "PUT" || c.method === "PATCH";
const keyed = (c: Contract) => c.access !== "public" && c.access !== "session";

/**
 * Every error an operation can answer with: the kernel's (by the operation's kind: the dispatcher
 * and `invoke` answer them for every operation alike) and the contract's own `errors` (what its
 * service can answer). The OpenAPI document declares exactly these statuses; the test harness and
 * the fuzz suite fail on any other.
 */
export function declaredErrors(c: Contract): DeclaredError[] {
  const out: DeclaredError[] = [];
  const add = (code: ErrorCode, when: string) => out.push({ code, status: ERROR_CODES[code].status, when });
  add(
    "invalid_request",
    "a malformed path, an unknown or invalid query parameter, an invalid field or a NUL byte in any string (`param` names it)",
  );
  if (c.idempotent && c.access !== "public")
    add("idempotency_key_mismatch", "the Idempotency-Key was used with another request");
  if (c.access === "session") {
    add("session_required", "no console session");
    add("not_permitted", "the organization role does not allow this, or a cross-origin change");
  } else if (keyed(c)) {
    add("missing_api_key", "no API key");
    add("invalid_api_key", "a malformed, unknown or revoked API key");
    add("scope_missing", "the key lacks the operation's scope");
    add("not_permitted", "the source IP is not on the key's allowlist, or the key may not act on this resource");
  } else if (c.acceptsKey) {
    // A public operation that reads an optional key authenticates it when one is sent.
    add("invalid_api_key", "a malformed, unknown or revoked API key was sent");
    add("not_permitted", "the key was sent from an address outside its allowlist");
  }
  if (c.params) add("resource_not_found", "no such resource in this organization");
  if (c.idempotent && c.access !== "public")
    add("idempotency_key_in_use", "a request with the same Idempotency-Key is still running");
  if (hasBody(c)) add("payload_too_large", "the request body is too large");
  if (c.access !== "public" || c.acceptsKey) add("rate_limited", "too many requests (`Retry-After`)");
  add("internal_error", "an unexpected error; retry with backoff");
  for (const code of c.errors ?? []) if (!out.some((e) => e.code === code)) add(code, "a rule of this operation");
  return out;
}

/** Every status `c` can answer with: its success status and those of its declared errors. */
export function declaredStatuses(c: Contract): Set<number> {
  return new Set([c.successStatus, ...declaredErrors(c).map((e) => e.status)]);
}

function errorResponses(c: Contract): Record<string, unknown> {
  const byStatus = new Map<number, DeclaredError[]>();
  for (const e of declaredErrors(c)) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  const out: Record<string, unknown> = {};
  for (const [status, errors] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = errorResponse(errors.map((e) => `\`${e.code}\`: ${e.when}`).join("; ") + ".", [
      ...new Set(errors.map((e) => e.code)),
    ]);
  }
  return out;
}

/** The OpenAPI 3.1.0 document, generated from the contracts (never written by hand). */
export function buildOpenApiDocument(contracts: readonly Contract[], serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const c of contracts) {
    const operation: Record<string, unknown> = {
      operationId: c.id,
      summary: c.summary,
      ...(c.description ? { description: c.description } : {}),
      tags: [c.tag],
      "x-svc-status": c.status,
      "x-svc-scope": c.access === "public" || c.access === "session" ? null : c.access === "key" ? "any" : c.access,
      security:
        c.access === "public"
          ? c.acceptsKey
            ? [{}, { bearerAuth: [] }]
            : []
          : c.access === "session"
            ? [{ sessionCookie: [] }]
            : [{ bearerAuth: [] }],
      parameters: [
        ...parameters(c.params, "path"),
        ...parameters(c.query, "query"),
        ...(c.idempotent && c.access !== "public" && c.access !== "session"
          ? [
              {
                name: "Idempotency-Key",
                in: "header",
                required: false,
                description:
                  "Replays the stored response for a repeated request (max 128 characters, kept at least 24 hours).",
                schema: { type: "string", maxLength: 128 },
              },
            ]
          : []),
      ],
      ...(c.body
        ? {
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: schemaOf(c.body, "input"),
                  ...(c.example !== undefined ? { example: c.example } : {}),
                },
              },
            },
          }
        : {}),
      responses: {
        [String(c.successStatus)]: {
          description: c.summary,
          content: c.binary
            ? { "application/octet-stream": { schema: { type: "string", format: "binary" } } }
            : {
                "application/json": { schema: schemaOf(c.response, "output") },
                // A provider's own format the operation may answer in instead (TwiML): text as it is.
                ...Object.fromEntries((c.rawReplies ?? []).map((t) => [t, { schema: { type: "string" } }])),
              },
        },
        ...errorResponses(c),
      },
    };
    paths[c.path] = { ...paths[c.path], [c.method.toLowerCase()]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Multi-Channel Messaging Service API",
      version: "1.0.0",
      description:
        "One /v1 API for email and agent-to-agent messaging with signed webhooks, an event stream and scoped API keys. Errors use `{error: {type, code, message, param}}`.",
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    servers: [{ url: serverUrl ?? "/" }],
    tags: [...new Set(contracts.map((c) => c.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key: `svc_live_…` or `svc_test_…`." },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "authjs.session-token",
          description: "A console session (Auth.js); `__Secure-authjs.session-token` over https.",
        },
      },
      schemas: { Error: errorSchema },
    },
  };
}
