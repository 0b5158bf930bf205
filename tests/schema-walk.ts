/**
 * Walking the request schemas of the OpenAPI document (JSON Schema as `z.toJSONSchema` writes it:
 * `type`, `properties`, `items`, `anyOf`, `additionalProperties`, `propertyNames`, `enum`, string
 * and number bounds): where the strings are (the NUL-byte cases of the security suite) and valid
 * values to start hostile ones from (the fuzz suite). Deterministic: randomness comes from a seed.
 */
export type JsonSchema = Record<string, any>;
export type Path = (string | number)[];

/** mulberry32: a small seeded PRNG, so a failing fuzz case replays exactly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

/** The variants of a schema (`anyOf`/`oneOf` flattened; a plain schema is its own single variant). */
export function variants(schema: JsonSchema): JsonSchema[] {
  const alts = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return alts ? alts.flatMap(variants) : [schema];
}

const typeOf = (s: JsonSchema): string | undefined =>
  Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;

/**
 * Every position in `schema` that takes a string, as a path: object properties by name, array
 * items at index 0, map values under a key the schema's `propertyNames` accepts (`X-Probe`).
 */
export function stringPaths(schema: JsonSchema, path: Path = [], depth = 0): Path[] {
  if (depth > 6) return [];
  const out: Path[] = [];
  const seen = new Set<string>();
  for (const v of variants(schema)) {
    const found: Path[] = [];
    const type = typeOf(v);
    if (type === "string") found.push(path);
    else if (type === "array" && v.items) found.push(...stringPaths(v.items, [...path, 0], depth + 1));
    else if (type === "object" || v.properties) {
      for (const [name, prop] of Object.entries<JsonSchema>(v.properties ?? {}))
        found.push(...stringPaths(prop, [...path, name], depth + 1));
      if (v.additionalProperties && typeof v.additionalProperties === "object")
        found.push(...stringPaths(v.additionalProperties, [...path, "X-Probe"], depth + 1));
    }
    for (const p of found) {
      const key = JSON.stringify(p);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(p);
      }
    }
  }
  return out;
}

/** A copy of `value` with `replacement` at `path` (objects and arrays created on the way). */
export function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Path];
  if (typeof head === "number") {
    const arr = Array.isArray(value) ? [...value] : [];
    arr[head] = setAt(arr[head], rest, replacement);
    return arr;
  }
  const obj =
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  obj[head] = setAt(obj[head], rest, replacement);
  return obj;
}

/** `["to", 0, "name"]` → `to[0].name`, the way the API's `param` names a field. */
export function paramOf(path: Path): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

const UUID = "01930000-0000-7000-8000-000000000000";

/** A value `schema` accepts (best effort: formats and bounds of the common cases). */
export function sample(schema: JsonSchema, random: () => number, depth = 0): unknown {
  const v = pick(random, variants(schema));
  if (v.const !== undefined) return v.const;
  if (Array.isArray(v.enum) && v.enum.length) return pick(random, v.enum);
  switch (typeOf(v)) {
    case "string": {
      if (v.format === "uuid") return UUID;
      if (v.format === "date-time") return new Date(Date.UTC(2030, 0, 1)).toISOString();
      if (v.format === "email") return "someone@example.com";
      if (v.format === "uri") return "https://example.com/hook";
      const min = Math.max(1, v.minLength ?? 1);
      return "x".repeat(Math.min(Math.max(min, 4), v.maxLength ?? 4));
    }
    case "integer":
    case "number": {
      const lo = v.minimum ?? (v.exclusiveMinimum !== undefined ? v.exclusiveMinimum + 1 : 1);
      const hi = v.maximum ?? lo + 10;
      return Math.max(lo, Math.min(hi, lo + 1));
    }
    case "boolean":
      return random() < 0.5;
    case "null":
      return null;
    case "array": {
      if (depth > 5 || !v.items) return [];
      const n = Math.max(v.minItems ?? 0, 1);
      return Array.from({ length: Math.min(n, v.maxItems ?? n) }, () => sample(v.items, random, depth + 1));
    }
    case "object": {
      const out: Record<string, unknown> = {};
      if (depth > 5) return out;
      const required = new Set<string>(v.required ?? []);
      for (const [name, prop] of Object.entries<JsonSchema>(v.properties ?? {}))
        if (required.has(name)) out[name] = sample(prop, random, depth + 1);
      return out;
    }
    default:
      return v.properties ? sample({ ...v, type: "object" }, random, depth) : null;
  }
}

/** The top-level property names of an object schema (every variant's). */
export function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const v of schema ? variants(schema) : []) Object.assign(out, v.properties ?? {});
  return out;
}
