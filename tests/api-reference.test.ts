import { expect, test } from "vitest";
import { apiReference, withBaseUrl } from "@/lib/meta/reference";
import { constraints, exampleOf, fieldRows, type Schema, typeLabel } from "@/lib/meta/schema-view";

/** Issue 14: the API reference page reads the generated OpenAPI document in words. */

const UUID_PATTERN = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$";

test("types read as words: formats instead of regular expressions, enums, arrays, nullable, maps", () => {
  expect(typeLabel({ type: "string", format: "uuid", pattern: UUID_PATTERN })).toBe("string (uuid)");
  expect(constraints({ type: "string", format: "uuid", pattern: UUID_PATTERN })).toEqual([]);
  expect(typeLabel({ type: "string", enum: ["active", "paused"] })).toBe('"active" | "paused"');
  expect(typeLabel({ anyOf: [{ type: "integer", minimum: 1, maximum: 10 }, { type: "null" }] })).toBe(
    "integer or null",
  );
  expect(constraints({ anyOf: [{ type: "integer", minimum: 1, maximum: 10 }, { type: "null" }] })).toEqual(["1–10"]);
  expect(typeLabel({ type: "array", items: { type: "string", format: "email" } })).toBe("array of string (email)");
  expect(typeLabel({ type: "object", additionalProperties: { type: "string" } })).toBe("map of string to string");
  expect(typeLabel({ type: "string", const: "webhook" })).toBe('"webhook"');
  expect(constraints({ type: "string", minLength: 1, maxLength: 120 })).toEqual(["1–120 characters"]);
  expect(constraints({ type: "string", pattern: "^buk_[0-9a-f]{32}$" })).toEqual(["matches ^buk_[0-9a-f]{32}$"]);
});

test("fields and examples come from the schema; a request example keeps to the required fields", () => {
  const schema: Schema = {
    type: "object",
    required: ["url", "events"],
    properties: {
      url: { type: "string", maxLength: 2048 },
      events: { type: "array", items: { type: "string", enum: ["message.received", "message.sent"] } },
      label: { anyOf: [{ type: "string" }, { type: "null" }] },
      owner: { type: "object", required: ["id"], properties: { id: { type: "string", format: "uuid" } } },
    },
  };
  const rows = fieldRows(schema);
  expect(rows.map((r) => [r.name, r.type, r.required])).toEqual([
    ["url", "string", true],
    ["events", 'array of "message.received" | "message.sent"', true],
    ["label", "string or null", false],
    ["owner", "object", false],
  ]);
  expect(rows[3]?.children.map((c) => [c.name, c.type])).toEqual([["id", "string (uuid)"]]);
  expect(exampleOf(schema, { requiredOnly: true })).toEqual({
    url: "https://example.com/",
    events: ["message.received"],
  });
  expect(exampleOf(schema)).toMatchObject({ label: "string", owner: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
});

test("the generated document: every operation has readable types (no regular expression as a type), examples, errors", () => {
  const { groups } = apiReference();
  const ops = groups.flatMap((g) => g.operations);
  expect(ops.length).toBeGreaterThan(50);
  const types = (rows: ReturnType<typeof fieldRows>): string[] => rows.flatMap((r) => [r.type, ...types(r.children)]);
  for (const op of ops) {
    const all = [
      ...op.parameters.map((p) => p.type),
      ...types(op.request?.fields ?? []),
      ...types(op.success?.fields ?? []),
    ];
    for (const t of all) {
      expect(t, `${op.id}: ${t}`).not.toMatch(/\^|\$\)|\[0-9/);
      expect(t, op.id).not.toBe("any");
    }
    if (op.request) expect(op.request.example, op.id).toBeTypeOf("object");
    expect(op.curl).toContain(op.method);
    expect(op.errors.length, op.id).toBeGreaterThan(0);
  }
  const send = ops.find((o) => o.id === "createWebhook");
  expect(send?.request?.exampleFromContract).toBe(true);
  expect(send?.curl).toContain("https://example.com/hooks/svc");
  const deliveries = ops.find((o) => o.id === "listWebhookDeliveries");
  const data = deliveries?.success?.fields.find((f) => f.name === "data");
  expect(data?.children.find((f) => f.name === "id")?.type).toBe("string (uuid)");
});

test("the reference shows the real base URL (the page's), never localhost:3000 as a placeholder", () => {
  const reference = withBaseUrl(apiReference(), "https://svc.example.net");
  expect(reference.server).toBe("https://svc.example.net");
  const ops = reference.groups.flatMap((g) => g.operations);
  for (const op of ops) {
    expect(op.curl, op.id).toContain("'https://svc.example.net/");
    expect(op.curl, op.id).not.toContain("localhost:3000");
    expect(op.curl, op.id).not.toContain("{{baseUrl}}");
  }
});
