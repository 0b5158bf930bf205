/** The spec's limits on templates (Limits part): react source, props and template variables. */
export const MAX_SOURCE_CHARS = 65_536;
export const MAX_PROPS_BYTES = 32 * 1024;
export const MAX_VARIABLES_BYTES = 32 * 1024;

/** Largest rendered HTML, characters. Gmail clips at about 102 KB; 512 KiB leaves room and stops output bombs. */
export const MAX_OUTPUT_CHARS = 512 * 1024;
/** Largest variable schema, serialized bytes, and its nesting depth. */
export const MAX_SCHEMA_BYTES = 32 * 1024;
export const MAX_SCHEMA_DEPTH = 6;

export interface RenderLimits {
  /** CPU time one render (module evaluation plus render) may take in the sandbox, ms. */
  timeoutMs: number;
  /** Heap of one sandbox context (runtime libraries included), MiB. */
  memoryMb: number;
  /** Largest HTML a render may produce, characters. */
  maxOutputChars: number;
}

/** Serialized size of a JSON value in UTF-8 bytes (what the 32 KiB limits measure). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), "utf8");
}
