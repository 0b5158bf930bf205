import { createHash } from "node:crypto";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { z } from "zod";
import { TemplateError } from "./errors";
import { jsonBytes, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_VARIABLES_BYTES } from "./limits";

/**
 * A template version's variable schema: a JSON Schema subset (`type`, `enum`, `maxLength`, `format`
 * `email` / `uri`, `required`, `default`, plus `properties` / `items` / `maxItems` /
 * `additionalProperties` for structure and `title` / `description` for people). The schema itself
 * is checked when a version is published (`parseVariableSchema`), compiled by ajv once per distinct
 * schema, and applied to every send and preview (`validateVariables`): defaults are filled in, and
 * the first failure is a `TemplateError` whose `param` names the variable, e.g.
 * `template.variables.name` or `template.variables.items[2].sku`.
 */

// Not `__proto__`, `constructor` or `prototype`: a default assigned under such a name would change an object's prototype.
const NAME = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export interface VariableSchema {
  type: "string" | "number" | "integer" | "boolean" | "array" | "object";
  title?: string;
  description?: string;
  enum?: (string | number | boolean | null)[];
  default?: unknown;
  maxLength?: number;
  format?: "email" | "uri";
  items?: VariableSchema;
  maxItems?: number;
  properties?: Record<string, VariableSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

const propertySchema: z.ZodType<VariableSchema> = z.lazy(() =>
  z.strictObject({
    type: z.enum(["string", "number", "integer", "boolean", "array", "object"]),
    title: z.string().max(200).optional(),
    description: z.string().max(2000).optional(),
    enum: z.array(scalar).min(1).max(500).optional(),
    default: z.json().optional(),
    maxLength: z.number().int().min(0).max(MAX_VARIABLES_BYTES).optional(),
    format: z.enum(["email", "uri"]).optional(),
    items: propertySchema.optional(),
    maxItems: z.number().int().min(0).max(10_000).optional(),
    properties: z
      .record(
        z.string().regex(NAME, "variable names are letters, digits and _ (not starting with a digit), at most 64"),
        propertySchema,
      )
      .optional(),
    required: z.array(z.string()).max(500).optional(),
    additionalProperties: z.boolean().optional(),
  }),
);

const rootSchema = z.strictObject({
  type: z.literal("object"),
  title: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  properties: z
    .record(
      z.string().regex(NAME, "variable names are letters, digits and _ (not starting with a digit), at most 64"),
      propertySchema,
    )
    .default({}),
  required: z.array(z.string()).max(500).optional(),
  additionalProperties: z.boolean().optional(),
});

export type RootVariableSchema = z.infer<typeof rootSchema>;

const KEYWORDS_BY_TYPE: Record<string, string[]> = {
  maxLength: ["string"],
  format: ["string"],
  items: ["array"],
  maxItems: ["array"],
  properties: ["object"],
  required: ["object"],
  additionalProperties: ["object"],
};

function joinPath(base: string, segments: (string | number)[]): string {
  let out = base;
  for (const s of segments) out = typeof s === "number" ? `${out}[${s}]` : out ? `${out}.${s}` : s;
  return out;
}

// ajv and ajv-formats are CommonJS; their default export is the plugin function.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

let ajv: Ajv | null = null;
function getAjv(): Ajv {
  if (!ajv) {
    ajv = new Ajv({
      allErrors: false,
      useDefaults: true,
      coerceTypes: false,
      strict: true,
      allowUnionTypes: false,
      validateFormats: true,
    });
    addFormats(ajv, ["email", "uri"]);
  }
  return ajv;
}

const compiled = new Map<string, ValidateFunction>();
const COMPILED_MAX = 1000;

/**
 * Checks a schema given at publish time (`null` or `{}` means "no declared variables": any JSON
 * object is accepted). Returns the normalized schema to store. `param` is the request field it came
 * from (e.g. `variables`), used in the error's `param`.
 */
export function parseVariableSchema(input: unknown, param = "variables"): RootVariableSchema | null {
  if (input === null || input === undefined) return null;
  if (typeof input === "object" && !Array.isArray(input) && Object.keys(input).length === 0) return null;
  if (jsonBytes(input) > MAX_SCHEMA_BYTES)
    throw new TemplateError(
      "invalid_schema",
      `the variable schema is larger than ${MAX_SCHEMA_BYTES / 1024} KiB`,
      param,
    );
  const forbidden = findForbiddenKey(input, []);
  if (forbidden) {
    const where = joinPath(param, forbidden);
    throw new TemplateError(
      "invalid_schema",
      `${where}: "__proto__", "constructor" and "prototype" cannot be used as names in a variable schema`,
      where,
    );
  }
  const parsed = rootSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = joinPath(
      param,
      (issue?.path ?? []).map((p) => (typeof p === "symbol" ? String(p) : p)),
    );
    throw new TemplateError(
      "invalid_schema",
      `${where}: ${issue?.message ?? "invalid schema"} (supported: type, enum, maxLength, format email/uri, required, default, properties, items, maxItems, additionalProperties, title, description)`,
      where,
    );
  }
  const schema = parsed.data;
  checkStructure(schema, [], param, 1);
  // Compiling also proves every default and enum value against its own property.
  compile(schema, param);
  return schema;
}

/** The path of the first own key `__proto__`, `constructor` or `prototype` anywhere in the schema (JSON.parse keeps them as own keys). */
function findForbiddenKey(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findForbiddenKey(value[i], [...path, i]);
      if (hit) return hit;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") return [...path, key];
    const hit = findForbiddenKey((value as Record<string, unknown>)[key], [...path, key]);
    if (hit) return hit;
  }
  return null;
}

function checkStructure(node: VariableSchema, path: (string | number)[], param: string, depth: number): void {
  const where = joinPath(param, path);
  if (depth > MAX_SCHEMA_DEPTH)
    throw new TemplateError(
      "invalid_schema",
      `${where}: the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`,
      where,
    );
  for (const [keyword, types] of Object.entries(KEYWORDS_BY_TYPE)) {
    if (
      keyword in node &&
      (node as unknown as Record<string, unknown>)[keyword] !== undefined &&
      !types.includes(node.type)
    ) {
      const at = joinPath(param, [...path, keyword]);
      throw new TemplateError(
        "invalid_schema",
        `${at}: "${keyword}" applies only to type ${types.join(" or ")}, not ${node.type}`,
        at,
      );
    }
  }
  if (node.required && node.properties) {
    for (const name of node.required) {
      if (!(name in node.properties)) {
        const at = joinPath(param, [...path, "required"]);
        throw new TemplateError("invalid_schema", `${at}: "${name}" is required but not declared in properties`, at);
      }
    }
  }
  for (const [name, child] of Object.entries(node.properties ?? {}))
    checkStructure(child, [...path, "properties", name], param, depth + 1);
  if (node.items) checkStructure(node.items, [...path, "items"], param, depth + 1);
}

function schemaKey(schema: RootVariableSchema): string {
  return createHash("sha256").update(JSON.stringify(schema)).digest("hex");
}

function compile(schema: RootVariableSchema, param: string): ValidateFunction {
  const key = schemaKey(schema);
  const hit = compiled.get(key);
  if (hit) return hit;
  let validate: ValidateFunction;
  try {
    validate = getAjv().compile(schema);
  } catch (err) {
    throw new TemplateError("invalid_schema", `${param}: ${(err as Error).message}`, param);
  } finally {
    // ajv keeps every schema object it compiled; this module's own cache is the one that is bounded.
    getAjv().removeSchema(schema);
  }
  // A default that breaks its own rule would make every send without the variable fail: refuse it now.
  checkDefaults(schema, [], param);
  compiled.set(key, validate);
  if (compiled.size > COMPILED_MAX) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  return validate;
}

function checkDefaults(node: VariableSchema, path: (string | number)[], param: string): void {
  if (node.default !== undefined) {
    const { default: value, ...rest } = node;
    const check = getAjv().compile(rest);
    getAjv().removeSchema(rest);
    if (!check(structuredClone(value))) {
      const at = joinPath(param, [...path, "default"]);
      throw new TemplateError("invalid_schema", `${at}: the default ${describe(check.errors?.[0])}`, at);
    }
  }
  for (const [name, child] of Object.entries(node.properties ?? {}))
    checkDefaults(child, [...path, "properties", name], param);
  if (node.items) checkDefaults(node.items, [...path, "items"], param);
}

function describe(error: ErrorObject | undefined | null): string {
  if (!error) return "is invalid";
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "type":
      return `must be ${String(p.type)}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "maxLength":
      return `must be at most ${String(p.limit)} characters`;
    case "maxItems":
      return `must have at most ${String(p.limit)} items`;
    case "format":
      return p.format === "email"
        ? "must be an email address"
        : p.format === "uri"
          ? "must be an absolute URI"
          : `must be a ${String(p.format)}`;
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not a declared variable";
    default:
      return error.message ?? "is invalid";
  }
}

function pointerSegments(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Validates (a copy of) `variables` against a stored schema and returns them with defaults filled
 * in. `param` is the field the variables came from (e.g. `template.variables`).
 */
export function validateVariables(
  schema: RootVariableSchema | null,
  variables: unknown,
  param = "template.variables",
): Record<string, unknown> {
  const value = variables ?? {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TemplateError("invalid_variables", `${param} must be a JSON object`, param);
  if (jsonBytes(value) > MAX_VARIABLES_BYTES) {
    throw new TemplateError(
      "invalid_variables",
      `${param} are larger than ${MAX_VARIABLES_BYTES / 1024} KiB serialized`,
      param,
    );
  }
  const copy = structuredClone(value) as Record<string, unknown>;
  if (!schema) return copy;
  const validate = compile(schema, "variables");
  if (validate(copy)) return copy;
  const error = validate.errors?.[0];
  const segments = pointerSegments(error?.instancePath ?? "");
  const p = (error?.params ?? {}) as Record<string, unknown>;
  if (error?.keyword === "required" && typeof p.missingProperty === "string") segments.push(p.missingProperty);
  if (error?.keyword === "additionalProperties" && typeof p.additionalProperty === "string")
    segments.push(p.additionalProperty);
  const where = joinPath(param, segments);
  throw new TemplateError("invalid_variables", `${where} ${describe(error)}`, where);
}
