import { describe, expect, it } from "vitest";
import { TemplateError } from "@/lib/templates/render";
import { parseSubjectTemplate, renderSubject } from "@/lib/templates/render/subject";
import { parseVariableSchema, validateVariables } from "@/lib/templates/render/variables";

const schema = parseVariableSchema({
  type: "object",
  properties: {
    name: { type: "string", maxLength: 20 },
    email: { type: "string", format: "email" },
    url: { type: "string", format: "uri", default: "https://example.com/start" },
    plan: { type: "string", enum: ["free", "pro"], default: "free" },
    seats: { type: "integer" },
    vip: { type: "boolean" },
    items: {
      type: "array",
      maxItems: 3,
      items: {
        type: "object",
        properties: { sku: { type: "string", maxLength: 8 }, qty: { type: "number" } },
        required: ["sku"],
      },
    },
  },
  required: ["name", "email"],
});

function fails(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateError);
    return err as TemplateError;
  }
  throw new Error("expected a TemplateError");
}

describe("variable schemas", () => {
  it("accepts good variables and fills defaults without touching the input", () => {
    const input = { name: "Ada", email: "ada@example.com" };
    const out = validateVariables(schema, input);
    expect(out).toEqual({ name: "Ada", email: "ada@example.com", url: "https://example.com/start", plan: "free" });
    expect(input).toEqual({ name: "Ada", email: "ada@example.com" });
  });

  it.each([
    ["missing required", { email: "a@b.co" }, "template.variables.name", /is required/],
    ["too long", { name: "x".repeat(21), email: "a@b.co" }, "template.variables.name", /at most 20 characters/],
    ["wrong type", { name: 5, email: "a@b.co" }, "template.variables.name", /must be string/],
    ["bad email", { name: "A", email: "not-an-email" }, "template.variables.email", /email address/],
    ["bad uri", { name: "A", email: "a@b.co", url: "not a uri" }, "template.variables.url", /URI/],
    ["not in enum", { name: "A", email: "a@b.co", plan: "gold" }, "template.variables.plan", /one of "free", "pro"/],
    ["not an integer", { name: "A", email: "a@b.co", seats: 1.5 }, "template.variables.seats", /integer/],
    [
      "nested item",
      { name: "A", email: "a@b.co", items: [{ sku: "ok" }, { sku: "waytoolongsku" }] },
      "template.variables.items[1].sku",
      /at most 8/,
    ],
    [
      "nested required",
      { name: "A", email: "a@b.co", items: [{ qty: 1 }] },
      "template.variables.items[0].sku",
      /is required/,
    ],
    [
      "too many items",
      { name: "A", email: "a@b.co", items: [{ sku: "a" }, { sku: "b" }, { sku: "c" }, { sku: "d" }] },
      "template.variables.items",
      /at most 3 items/,
    ],
  ])("refuses %s, naming the variable", (_, vars, param, message) => {
    const err = fails(() => validateVariables(schema, vars));
    expect(err.code).toBe("invalid_variables");
    expect(err.param).toBe(param);
    expect(err.message).toMatch(message);
  });

  it("refuses variables over 32 KiB and non-objects", () => {
    expect(fails(() => validateVariables(null, { x: "y".repeat(33 * 1024) })).param).toBe("template.variables");
    expect(fails(() => validateVariables(schema, ["a"])).code).toBe("invalid_variables");
    expect(fails(() => validateVariables(schema, "a")).code).toBe("invalid_variables");
  });

  it("accepts anything object-shaped without a schema", () => {
    expect(parseVariableSchema(null)).toBeNull();
    expect(parseVariableSchema({})).toBeNull();
    expect(validateVariables(null, { anything: [1, { a: 2 }] })).toEqual({ anything: [1, { a: 2 }] });
  });

  it("additionalProperties: false names the undeclared variable", () => {
    const strict = parseVariableSchema({
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: false,
    });
    const err = fails(() => validateVariables(strict, { a: "x", typo: 1 }));
    expect(err.param).toBe("template.variables.typo");
  });

  it("does not let __proto__ in variables reach the prototype", () => {
    const vars = JSON.parse('{"name": "A", "email": "a@b.co", "__proto__": {"polluted": 1}}') as Record<
      string,
      unknown
    >;
    validateVariables(schema, vars);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [
      "an unsupported keyword",
      { type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } },
      "variables.properties.a",
      /Unrecognized key|pattern/,
    ],
    ["$ref", { type: "object", properties: { a: { $ref: "#" } } }, "variables.properties.a", /./],
    ["a root that is not an object", { type: "string" }, "variables.type", /./],
    [
      "maxLength on a number",
      { type: "object", properties: { n: { type: "number", maxLength: 3 } } },
      "variables.properties.n.maxLength",
      /applies only to type string/,
    ],
    [
      "an unknown format",
      { type: "object", properties: { a: { type: "string", format: "hostname" } } },
      "variables.properties.a.format",
      /./,
    ],
    [
      "a bad variable name",
      { type: "object", properties: { "__proto__x y": { type: "string" } } },
      "variables.properties",
      /Invalid key|variable names/,
    ],
    [
      "__proto__ as a name",
      JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "object", "default": {"polluted": 1}}}}'),
      "variables.properties.__proto__",
      /cannot be used/,
    ],
    [
      "required but undeclared",
      { type: "object", properties: { a: { type: "string" } }, required: ["b"] },
      "variables.required",
      /not declared/,
    ],
    [
      "a default that breaks its rule",
      { type: "object", properties: { a: { type: "string", maxLength: 2, default: "toolong" } } },
      "variables.properties.a.default",
      /at most 2/,
    ],
    [
      "a default outside the enum",
      { type: "object", properties: { a: { type: "string", enum: ["x"], default: "y" } } },
      "variables.properties.a.default",
      /one of/,
    ],
    [
      "nesting too deep",
      {
        type: "object",
        properties: {
          a: {
            type: "object",
            properties: {
              b: {
                type: "object",
                properties: {
                  c: {
                    type: "object",
                    properties: {
                      d: {
                        type: "object",
                        properties: { e: { type: "object", properties: { f: { type: "string" } } } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      "variables.properties.a.properties.b.properties.c.properties.d.properties.e.properties.f",
      /deeper/,
    ],
  ])("refuses a schema with %s at publish time", (_, input, param, message) => {
    const err = fails(() => parseVariableSchema(input));
    expect(err.code).toBe("invalid_schema");
    expect(err.param).toContain(param);
    expect(err.message).toMatch(message);
  });

  it("compiles each distinct schema once", () => {
    const a = parseVariableSchema({ type: "object", properties: { x: { type: "string" } } });
    const b = parseVariableSchema({ type: "object", properties: { x: { type: "string" } } });
    expect(validateVariables(a, { x: "1" })).toEqual(validateVariables(b, { x: "1" }));
  });
});

describe("subject templates", () => {
  it("fills placeholders, dotted paths, and leaves unknown ones empty", () => {
    expect(
      renderSubject("Welcome, {{ name }}! Order {{order.id}} {{missing}}", { name: "Ada", order: { id: 42 } }),
    ).toBe("Welcome, Ada! Order 42");
  });

  it("never produces a second header line", () => {
    expect(renderSubject("Hi {{name}}", { name: "Ada\r\nBcc: victim@example.com" })).toBe(
      "Hi Ada Bcc: victim@example.com",
    );
  });

  it("lists the variables a subject uses and refuses malformed placeholders", () => {
    expect(parseSubjectTemplate("{{ a }} and {{b.c}}")).toEqual(["a", "b"]);
    expect(() => parseSubjectTemplate("Hi {{ name ")).toThrow(TemplateError);
    expect(() => parseSubjectTemplate("Hi {{ constructor() }}")).toThrow(TemplateError);
  });

  it("does not read inherited properties", () => {
    expect(renderSubject("{{ constructor }}|{{ toString }}", {})).toBe("|");
  });
});
