import type { z } from "zod";

/** The HTML constraints of a form input, read from the contract's schema for that field. */
export interface InputRules {
  required?: boolean;
  maxLength?: number;
  minLength?: number;
  type?: "email" | "url";
}

type AnySchema = z.core.$ZodType;

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/**
 * `required`, `maxLength`, `minLength` and `type` for the input named `name`, from `schema` (a zod
 * object: a contract's body): the same limits the API enforces, so a form never lets a person type
 * what the API refuses. Client-safe (contracts are).
 */
export function inputRules(schema: z.ZodType | undefined, name: string): InputRules {
  const shape = schema && "shape" in schema ? (schema.shape as Record<string, AnySchema>) : {};
  let field: AnySchema | undefined = shape[name];
  if (!field) return {};
  let required = true;
  for (;;) {
    const def = field._zod.def as { type: string; innerType?: AnySchema; in?: AnySchema };
    if (WRAPPERS.has(def.type) && def.innerType) {
      if (def.type !== "nonoptional") required = false;
      field = def.innerType;
    } else if (def.type === "pipe" && def.in) field = def.in;
    else break;
  }
  const out: InputRules = required ? { required: true } : {};
  if (field._zod.def.type === "string") {
    const s = field as z.ZodString;
    if (s.maxLength !== null) out.maxLength = s.maxLength;
    if (s.minLength !== null && s.minLength > 1) out.minLength = s.minLength;
    if (s.format === "email" || s.format === "url") out.type = s.format;
  }
  return out;
}
