import { z } from "zod";
import type { Contract } from "./contract";
import { ERROR_CODES } from "./errors";

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
        param: { type: ["string", "null"] },
      },
    },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

function errorResponses(c: Contract): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.query || c.body) out["400"] = errorResponse("Invalid request (`invalid_request`, with `param` naming the field)");
  if (c.access === "session") {
    out["401"] = errorResponse("No console session (`session_required`)");
    out["403"] = errorResponse("The organization role does not allow this, or a cross-origin change (`not_permitted`)");
    out["429"] = errorResponse("Rate limited (`rate_limited`, with `Retry-After`)");
  } else if (c.access !== "public") {
    out["401"] = errorResponse("Missing, malformed, unknown or revoked API key");
    out["403"] = errorResponse("Missing scope (`scope_missing`) or source IP not on the key's allowlist (`not_permitted`)");
    out["429"] = errorResponse("Rate limited (`rate_limited`, with `Retry-After`)");
  }
  if (c.params) out["404"] = errorResponse("No such resource in this organization (`resource_not_found`)");
  if (c.body) out["413"] = errorResponse("Request body too large");
  out["500"] = errorResponse("Unexpected error (`internal_error`); retry with backoff");
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
      security: c.access === "public" ? [] : c.access === "session" ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }],
      parameters: [
        ...parameters(c.params, "path"),
        ...parameters(c.query, "query"),
        ...(c.idempotent && c.access !== "public" && c.access !== "session"
          ? [
              {
                name: "Idempotency-Key",
                in: "header",
                required: false,
                description: "Replays the stored response for a repeated request (max 128 characters, kept at least 24 hours).",
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
                "application/json": { schema: schemaOf(c.body, "input"), ...(c.example !== undefined ? { example: c.example } : {}) },
              },
            },
          }
        : {}),
      responses: {
        [String(c.successStatus)]: {
          description: c.summary,
          content: c.binary
            ? { "application/octet-stream": { schema: { type: "string", format: "binary" } } }
            : { "application/json": { schema: schemaOf(c.response, "output") } },
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
        sessionCookie: { type: "apiKey", in: "cookie", name: "authjs.session-token", description: "A console session (Auth.js); `__Secure-authjs.session-token` over https." },
      },
      schemas: { Error: errorSchema },
    },
  };
}
