import { openApiDocument } from "./openapi";

interface Param {
  name: string;
  in: string;
  required: boolean;
  schema: unknown;
}

interface OperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  scope: string;
  status: string;
  parameters: Param[];
  requestBody: unknown;
  responses: string[];
  successSchema: unknown;
}

/** The OpenAPI document reshaped for the human-readable reference page, grouped by tag. */
export function apiReference() {
  const doc = openApiDocument() as {
    info: { title: string; version: string; description: string };
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const groups = new Map<string, OperationView[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = ((op.tags as string[] | undefined) ?? ["Other"])[0] ?? "Other";
      const responses = op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>;
      const success = Object.entries(responses).find(([code]) => code.startsWith("2"));
      const body = op.requestBody as { content: Record<string, { schema: unknown }> } | undefined;
      const view: OperationView = {
        id: String(op.operationId),
        method: method.toUpperCase(),
        path,
        summary: String(op.summary),
        description: op.description as string | undefined,
        scope: typeof op["x-svc-scope"] === "string" ? op["x-svc-scope"] : "public",
        status: String(op["x-svc-status"]),
        parameters: (op.parameters as Param[] | undefined) ?? [],
        requestBody: body?.content["application/json"]?.schema,
        responses: Object.keys(responses),
        successSchema: success?.[1].content?.["application/json"]?.schema,
      };
      groups.set(tag, [...(groups.get(tag) ?? []), view]);
    }
  }
  return { info: doc.info, groups: [...groups].map(([tag, operations]) => ({ tag, operations })) };
}
