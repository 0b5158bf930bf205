/**
 * JSON Schema (as the generated OpenAPI document has it) in words for the API reference page:
 * readable types ("string (uuid)", "one of a, b", "array of string", "… or null") instead of raw
 * schemas and regular expressions, the fields of an object as rows, and example values built
 * from the schema when the contract gives none.
 */
export type Schema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  $ref?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
};

/** Formats whose patterns are the format itself (never shown as a regular expression). */
const FORMATTED = new Set([
  "uuid",
  "date-time",
  "date",
  "email",
  "uri",
  "url",
  "ipv4",
  "ipv6",
  "hostname",
  "time",
  "duration",
]);

/** The non-null alternatives of a schema and whether null is allowed. */
export function unwrapNullable(schema: Schema): { schema: Schema; nullable: boolean } {
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts) {
    const rest = alts.filter((s) => s.type !== "null");
    if (rest.length < alts.length) {
      return {
        schema: rest.length === 1 && rest[0] ? rest[0] : { ...schema, anyOf: rest, oneOf: undefined },
        nullable: true,
      };
    }
  }
  if (Array.isArray(schema.type) && schema.type.includes("null")) {
    const types = schema.type.filter((t) => t !== "null");
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  return { schema, nullable: false };
}

const refName = (ref: string) => ref.split("/").pop() ?? ref;
const literal = (v: unknown) => (typeof v === "string" ? `"${v}"` : JSON.stringify(v));

/** A schema's type in words, e.g. `string (uuid)`, `"active" | "paused"`, `array of string`, `integer or null`. */
export function typeLabel(input: Schema, depth = 0): string {
  const { schema, nullable } = unwrapNullable(input);
  const label = baseLabel(schema, depth);
  return nullable ? `${label} or null` : label;
}

function baseLabel(s: Schema, depth: number): string {
  if (s.$ref) return refName(s.$ref);
  if (s.const !== undefined) return literal(s.const);
  if (s.enum)
    return s.enum.length <= 6 || depth > 0 ? s.enum.map(literal).join(" | ") : `one of ${s.enum.length} values`;
  const alts = s.anyOf ?? s.oneOf;
  if (alts && alts.length > 0) return alts.map((a) => typeLabel(a, depth + 1)).join(" or ");
  if (s.allOf && s.allOf.length > 0) return s.allOf.map((a) => typeLabel(a, depth + 1)).join(" and ");
  const type = Array.isArray(s.type) ? s.type.join(" or ") : s.type;
  if (type === "array") return s.items ? `array of ${typeLabel(s.items, depth + 1)}` : "array";
  if (type === "object" || (!type && s.properties)) {
    if (s.properties) return "object";
    if (s.additionalProperties && typeof s.additionalProperties === "object")
      return `map of string to ${typeLabel(s.additionalProperties, depth + 1)}`;
    return "object";
  }
  if (type === "string" && s.format) return `string (${s.format})`;
  return type ?? "any JSON value";
}

/** Limits in words ("1–120 characters", "at most 10 items", "≥ 1"); patterns only when they are not a format's. */
export function constraints(input: Schema): string[] {
  const { schema: s } = unwrapNullable(input);
  const out: string[] = [];
  if (s.minLength !== undefined && s.maxLength !== undefined)
    out.push(
      s.minLength === s.maxLength ? `exactly ${s.maxLength} characters` : `${s.minLength}–${s.maxLength} characters`,
    );
  else if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  else if (s.minLength !== undefined && s.minLength > 0)
    out.push(`at least ${s.minLength} character${s.minLength === 1 ? "" : "s"}`);
  if (s.minimum !== undefined && s.maximum !== undefined) out.push(`${s.minimum}–${s.maximum}`);
  else if (s.minimum !== undefined) out.push(`≥ ${s.minimum}`);
  else if (s.maximum !== undefined) out.push(`≤ ${s.maximum}`);
  if (s.exclusiveMinimum !== undefined) out.push(`> ${s.exclusiveMinimum}`);
  if (s.exclusiveMaximum !== undefined) out.push(`< ${s.exclusiveMaximum}`);
  if (s.minItems !== undefined && s.maxItems !== undefined) out.push(`${s.minItems}–${s.maxItems} items`);
  else if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  else if (s.minItems !== undefined && s.minItems > 0)
    out.push(`at least ${s.minItems} item${s.minItems === 1 ? "" : "s"}`);
  if (s.enum && s.enum.length > 6) out.push(`one of: ${s.enum.map(literal).join(", ")}`);
  if (s.pattern && !(s.format && FORMATTED.has(s.format)) && s.pattern.length <= 80) out.push(`matches ${s.pattern}`);
  if (s.default !== undefined) out.push(`default ${literal(s.default)}`);
  return out;
}

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string | null;
  constraints: string[];
  /** The fields of a nested object (or of an array's objects), when it has any. */
  children: FieldRow[];
}

/** The object a schema describes (itself, an array's items, or its non-null alternative), if any. */
function objectOf(input: Schema): Schema | null {
  const { schema } = unwrapNullable(input);
  if (schema.properties) return schema;
  if (schema.items) return objectOf(schema.items);
  return null;
}

/** An object schema's fields as rows, nested objects' fields as children (to `maxDepth`). */
export function fieldRows(input: Schema | undefined, maxDepth = 4, depth = 0): FieldRow[] {
  if (!input) return [];
  const obj = objectOf(input);
  if (!obj?.properties) return [];
  const required = new Set(obj.required ?? []);
  return Object.entries(obj.properties).map(([name, s]) => {
    const nested = depth + 1 < maxDepth ? objectOf(s) : null;
    return {
      name,
      type: typeLabel(s),
      required: required.has(name),
      description: s.description ?? unwrapNullable(s).schema.description ?? null,
      constraints: constraints(s),
      children: nested ? fieldRows(nested, maxDepth, depth + 1) : [],
    };
  });
}

const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "0193a5b2-7c1d-7e4f-9a0b-1c2d3e4f5a6b",
  "date-time": "2026-11-23T16:20:00.000Z",
  date: "2026-11-23",
  email: "agent@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
};

/**
 * An example value for a schema: its own `example`, a default, the first enum value or constant,
 * else a plausible value of its type (for a request, `requiredOnly` keeps to the required fields).
 */
export function exampleOf(
  input: Schema | undefined,
  options: { requiredOnly?: boolean; name?: string } = {},
  depth = 0,
): unknown {
  if (!input || depth > 6) return null;
  if (input.example !== undefined) return input.example;
  if (input.examples?.[0] !== undefined) return input.examples[0];
  const { schema: s } = unwrapNullable(input);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.[0]) return exampleOf(alts[0], options, depth + 1);
  if (s.allOf?.[0]) return exampleOf(s.allOf[0], options, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (s.properties || type === "object") {
    if (!s.properties) return {};
    const required = new Set(s.required ?? []);
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(s.properties)) {
      if (options.requiredOnly && !required.has(name)) continue;
      out[name] = exampleOf(prop, { ...options, name }, depth + 1);
    }
    return out;
  }
  if (type === "array") return s.items ? [exampleOf(s.items, { ...options, name: undefined }, depth + 1)] : [];
  if (type === "string") {
    if (s.format && FORMAT_EXAMPLES[s.format]) return FORMAT_EXAMPLES[s.format];
    const name = options.name?.toLowerCase() ?? "";
    if (name.includes("email") || name === "to" || name === "from" || name === "address") return "agent@example.com";
    if (name.includes("url")) return "https://example.com/";
    if (name.includes("cursor")) return "eyJ2IjoxfQ";
    if (s.minLength !== undefined && s.minLength > 12) return "x".repeat(s.minLength);
    return "string";
  }
  if (type === "integer" || type === "number") return s.minimum !== undefined && s.minimum > 0 ? s.minimum : 0;
  if (type === "boolean") return false;
  return null;
}
