import Ajv, { type ErrorObject } from "ajv";
import addFormats from "ajv-formats";
import { htmlText } from "@/lib/waits/matcher";

/**
 * Extraction for schema inboxes: the flat "JSON-Schema-lite" contract, its compilation to a real
 * JSON Schema validated with ajv, and the default (deterministic) extractor — a JSON body, a JSON
 * attachment, or "key: value" lines — with values coerced to the declared types.
 */

export const SCALAR_TYPES = ["string", "number", "integer", "boolean", "email", "url", "date"] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export type FieldDecl =
  | { type: ScalarType; required?: boolean; description?: string }
  | { type: "enum"; values: string[]; required?: boolean; description?: string }
  | {
      type: "array";
      items: { type: ScalarType } | { type: "enum"; values: string[] };
      required?: boolean;
      description?: string;
    };

export type FlatSchema = Record<string, FieldDecl>;

function scalarJsonSchema(d: { type: ScalarType } | { type: "enum"; values: string[] }): Record<string, unknown> {
  switch (d.type) {
    case "enum":
      return { type: "string", enum: d.values };
    case "email":
      return { type: "string", format: "email" };
    case "url":
      return { type: "string", format: "uri" };
    case "date":
      return { type: "string", format: "date" };
    default:
      return { type: d.type };
  }
}

/** The flat contract as a JSON Schema (draft 2020-12 subset ajv validates). */
export function toJsonSchema(schema: FlatSchema): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, d] of Object.entries(schema)) {
    properties[name] = d.type === "array" ? { type: "array", items: scalarJsonSchema(d.items) } : scalarJsonSchema(d);
    if (d.required) required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv, ["email", "uri", "date"]);

export interface ExtractionErrorItem {
  field: string;
  message: string;
}

export function validateStructured(schema: FlatSchema, data: Record<string, unknown>): ExtractionErrorItem[] {
  const validate = ajv.compile(toJsonSchema(schema));
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) => ({
    field:
      e.keyword === "required"
        ? String((e.params as { missingProperty: string }).missingProperty)
        : e.instancePath.replace(/^\//, "").replace(/\//g, ".") || "",
    message: e.message ?? e.keyword,
  }));
}

const keyOf = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");

function coerceScalar(d: { type: ScalarType } | { type: "enum"; values: string[] }, v: unknown): unknown {
  if (typeof v !== "string") {
    if (d.type === "string" && (typeof v === "number" || typeof v === "boolean")) return String(v);
    return v;
  }
  const s = v.trim();
  switch (d.type) {
    case "number":
      return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s.replace(/,/g, "")) ? Number(s.replace(/,/g, "")) : s;
    case "integer":
      return /^[-+]?\d+$/.test(s.replace(/,/g, "")) ? Number(s.replace(/,/g, "")) : s;
    case "boolean":
      return /^(true|yes|1|on)$/i.test(s) ? true : /^(false|no|0|off)$/i.test(s) ? false : s;
    case "enum":
      return d.values.find((x) => x.toLowerCase() === s.toLowerCase()) ?? s;
    case "email":
      return s.toLowerCase();
    default:
      return s;
  }
}

/** Coerces extracted values to the declared types (`"7"` → 7, `"false"` → false, "a, b" → ["a", "b"]). */
export function coerce(schema: FlatSchema, raw: Record<string, unknown>): Record<string, unknown> {
  const byKey = new Map(Object.keys(schema).map((k) => [keyOf(k), k]));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    const name = byKey.get(keyOf(k));
    if (!name) continue;
    const d = schema[name];
    if (!d) continue;
    if (d.type === "array") {
      const list = Array.isArray(v) ? v : typeof v === "string" ? v.split(/\s*[,;]\s*/).filter(Boolean) : [v];
      out[name] = list.map((x) => coerceScalar(d.items, x));
    } else out[name] = coerceScalar(d, v);
  }
  return out;
}

export interface ExtractSource {
  text: string | null;
  html: string | null;
  files: { filename: string | null; contentType: string; content: Buffer }[];
}

const asObject = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

function parseJson(s: string): Record<string, unknown> | null {
  const t = s.trim();
  if (!t.startsWith("{")) return null;
  try {
    return asObject(JSON.parse(t));
  } catch {
    return null;
  }
}

/**
 * The default extractor: a JSON object body, else a JSON attachment, else "key: value" lines of
 * the text (or the HTML's text); values coerced. Throws nothing: an unreadable message yields `{}`.
 */
export function extractDefault(schema: FlatSchema, source: ExtractSource): Record<string, unknown> {
  const body = source.text ?? (source.html ? htmlText(source.html) : "");
  const fromBody = parseJson(body);
  if (fromBody) return coerce(schema, fromBody);
  for (const f of source.files) {
    if (f.contentType === "application/json" || /\.json$/i.test(f.filename ?? "")) {
      const parsed = parseJson(f.content.toString("utf8"));
      if (parsed) return coerce(schema, parsed);
    }
  }
  const pairs: Record<string, string> = {};
  for (const line of body.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z][\w .-]{0,63}?)\s*[:=]\s*(.+?)\s*$/.exec(line);
    if (m?.[1] && m[2] !== undefined && !(keyOf(m[1]) in pairs)) pairs[keyOf(m[1])] = m[2];
  }
  return coerce(schema, pairs);
}
