import type { Method } from "@/lib/core/contract";
import type { AnyOperation } from "@/lib/core/operation";

/**
 * The route table of the HTTP adapter, compiled once from the registry's operations: a path
 * template (`/v1/api-keys/{keyId}`) and, per method, its operation. Static paths are one map
 * lookup; templates with parameters are tried by segment count, static segments first.
 */
export interface RouteEntry {
  template: string;
  byMethod: ReadonlyMap<Method, AnyOperation>;
  /** Methods the path serves, for `Allow`. */
  allow: string;
}

interface Compiled {
  entry: RouteEntry;
  /** Per segment: a literal, or a parameter name. */
  segments: { literal?: string; param?: string }[];
  rank: number;
}

export interface RouteMatch {
  entry: RouteEntry;
  params: Record<string, string>;
}

export interface RouteTable {
  entries: readonly RouteEntry[];
  /** The route of decoded path segments (`["v1", "api-keys", "…"]`), or null. */
  match(segments: readonly string[]): RouteMatch | null;
}

export function compileRoutes(operations: readonly AnyOperation[]): RouteTable {
  const byTemplate = new Map<string, Map<Method, AnyOperation>>();
  for (const op of operations) {
    const methods = byTemplate.get(op.contract.path) ?? new Map<Method, AnyOperation>();
    if (methods.has(op.contract.method))
      throw new Error(`Two operations serve ${op.contract.method} ${op.contract.path}`);
    methods.set(op.contract.method, op);
    byTemplate.set(op.contract.path, methods);
  }
  const entries: RouteEntry[] = [...byTemplate].map(([template, byMethod]) => ({
    template,
    byMethod,
    allow: [...byMethod.keys()].join(", "),
  }));
  const statics = new Map<string, RouteEntry>();
  const dynamic = new Map<number, Compiled[]>();
  for (const entry of entries) {
    const parts = entry.template.split("/").slice(1);
    const segments = parts.map((p) => (/^\{\w+\}$/.test(p) ? { param: p.slice(1, -1) } : { literal: p }));
    if (segments.every((s) => s.literal !== undefined)) {
      statics.set(parts.join("/"), entry);
      continue;
    }
    // Static segments outrank parameters, from the left (as in Next's router): /a/b before /a/{x}.
    const rank = segments.reduce((n, s) => n * 2 + (s.literal !== undefined ? 1 : 0), 0);
    const list = dynamic.get(segments.length) ?? [];
    list.push({ entry, segments, rank });
    dynamic.set(segments.length, list);
  }
  for (const list of dynamic.values()) list.sort((a, b) => b.rank - a.rank);

  return {
    entries,
    match(segments) {
      const exact = statics.get(segments.join("/"));
      if (exact) return { entry: exact, params: {} };
      for (const candidate of dynamic.get(segments.length) ?? []) {
        const params: Record<string, string> = {};
        let ok = true;
        for (let i = 0; i < segments.length && ok; i++) {
          const seg = candidate.segments[i];
          const actual = segments[i] ?? "";
          if (seg?.param !== undefined) {
            if (actual === "") ok = false;
            else params[seg.param] = actual;
          } else if (seg?.literal !== actual) ok = false;
        }
        if (ok) return { entry: candidate.entry, params };
      }
      return null;
    },
  };
}
