import { openApiDocument } from "./openapi";
import { constraints, exampleOf, type FieldRow, fieldRows, type Schema, typeLabel } from "./schema-view";

export interface ParamView {
  name: string;
  in: string;
  required: boolean;
  type: string;
  description: string | null;
  constraints: string[];
}

export interface ResponseView {
  status: string;
  description: string;
}

export interface OperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  scope: string;
  status: string;
  parameters: ParamView[];
  /** The request body's fields and an example (the contract's, else one built from the schema). */
  request: { fields: FieldRow[]; example: unknown; exampleFromContract: boolean } | null;
  /** The success response: its status, fields and an example built from the schema. */
  success: { status: string; fields: FieldRow[]; example: unknown } | null;
  /** Error statuses with the codes they carry, in words. */
  errors: ResponseView[];
  /** A curl request with the example body. */
  curl: string;
}

interface RawOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  security?: unknown[];
  "x-svc-scope"?: string;
  "x-svc-status"?: string;
}

/** Where the examples' base URL goes when the document declares none (filled per request by `withBaseUrl`). */
const BASE_URL_SLOT = "{{baseUrl}}";

function curlOf(method: string, path: string, server: string, example: unknown, auth: boolean): string {
  const url = `${server || BASE_URL_SLOT}${path.replace(/\{(\w+)\}/g, ":$1")}`;
  const lines = [`curl -X ${method} '${url}'`];
  if (auth) lines.push(`  -H 'Authorization: Bearer $SVC_API_KEY'`);
  if (example !== undefined) {
    lines.push(`  -H 'Content-Type: application/json'`);
    lines.push(`  -d '${JSON.stringify(example).replace(/'/g, "'\\''")}'`);
  }
  return lines.join(" \\\n");
}

let cached: ReturnType<typeof buildReference> | undefined;

/** The OpenAPI document reshaped for the human-readable reference pages, grouped by tag (built once). */
export function apiReference() {
  cached ??= buildReference();
  return cached;
}

/**
 * The reference with its base URL: the document's own when it declares an absolute one, else
 * `baseUrl` (the page's: `PUBLIC_BASE_URL`, else the request's origin, `lib/console/base-url.ts`).
 */
export function withBaseUrl(reference: ReturnType<typeof apiReference>, baseUrl: string) {
  if (reference.server) return reference;
  return {
    ...reference,
    server: baseUrl,
    groups: reference.groups.map((g) => ({
      ...g,
      operations: g.operations.map((o) => ({ ...o, curl: o.curl.replace(BASE_URL_SLOT, baseUrl) })),
    })),
  };
}

function buildReference() {
  const doc = openApiDocument() as {
    info: { title: string; version: string; description: string };
    servers?: { url: string }[];
    tags?: { name: string; description?: string }[];
    paths: Record<string, Record<string, RawOperation>>;
    components?: { securitySchemes?: Record<string, { description?: string }> };
  };
  // A relative server ("/": the document's own origin) shows as a placeholder in examples.
  const declared = doc.servers?.[0]?.url ?? "";
  const server = /^https?:\/\//.test(declared) ? declared.replace(/\/$/, "") : "";
  const groups = new Map<string, OperationView[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? "Other";
      const json = op.requestBody?.content["application/json"];
      const successEntry = Object.entries(op.responses).find(([code]) => code.startsWith("2"));
      const successSchema = successEntry?.[1].content?.["application/json"]?.schema;
      const exampleFromContract = json?.example !== undefined;
      const requestExample = json
        ? exampleFromContract
          ? json.example
          : exampleOf(json.schema, { requiredOnly: true })
        : undefined;
      const auth = (op.security ?? []).length > 0;
      const view: OperationView = {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        description: op.description,
        scope: op["x-svc-scope"] ?? "public",
        status: op["x-svc-status"] ?? "live",
        parameters: (op.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in,
          required: Boolean(p.required),
          type: typeLabel(p.schema),
          description: p.description ?? p.schema.description ?? null,
          constraints: constraints(p.schema),
        })),
        request: json ? { fields: fieldRows(json.schema), example: requestExample, exampleFromContract } : null,
        success: successEntry
          ? {
              status: successEntry[0],
              fields: fieldRows(successSchema),
              example: successSchema ? exampleOf(successSchema) : undefined,
            }
          : null,
        errors: Object.entries(op.responses)
          .filter(([code]) => !code.startsWith("2"))
          .map(([status, r]) => ({ status, description: r.description })),
        curl: curlOf(method.toUpperCase(), path, server, requestExample, auth),
      };
      groups.set(tag, [...(groups.get(tag) ?? []), view]);
    }
  }
  const tagDescriptions = new Map((doc.tags ?? []).map((t) => [t.name, t.description ?? null]));
  return {
    info: doc.info,
    server,
    auth: doc.components?.securitySchemes?.bearerAuth?.description ?? null,
    groups: [...groups].map(([tag, operations]) => ({
      tag,
      slug: slug(tag),
      description: tagDescriptions.get(tag) ?? null,
      operations,
    })),
  };
}

export const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
