import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Message, Plugin } from "esbuild";
import { TemplateError } from "./errors";
import { MAX_SOURCE_CHARS } from "./limits";

/**
 * Compiles a template's TSX source with esbuild into a CommonJS module body that the sandbox wraps
 * in a function (`__svc.define`). Imports are checked here: only `react` (and its JSX runtimes) and
 * `@react-email/components` resolve; anything else (`node:fs`, `child_process`, a relative path, a
 * URL) fails the compile with the import's line and column. A `require(variable)` that esbuild cannot
 * see is refused by the sandbox's own `require` at run time.
 */

/** The esbuild options every template build shares: one CommonJS bundle in memory, React's automatic JSX. */
const BUILD_OPTIONS = {
  bundle: true,
  write: false,
  format: "cjs",
  platform: "neutral",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "react",
  legalComments: "none",
  charset: "utf8",
  logLevel: "silent",
} as const;

export interface CompiledTemplate {
  /** sha256 of the source: the module's id in the sandbox and the cache key. */
  id: string;
  code: string;
}

export const ALLOWED_IMPORTS = [
  "react",
  "react/jsx-runtime",
  "react/jsx-dev-runtime",
  "@react-email/components",
] as const;
const ALLOWED = new Set<string>(ALLOWED_IMPORTS);

const allowlist: Plugin = {
  name: "svc-template-imports",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (ALLOWED.has(args.path)) return { path: args.path, external: true };
      return {
        errors: [
          {
            text: `import of "${args.path}" is not allowed; templates may import only react and @react-email/components`,
            detail: "import_not_allowed",
          },
        ],
      };
    });
  },
};

const CACHE_MAX = 500;
const cache = new Map<string, CompiledTemplate>();

export function sourceId(source: string): string {
  return createHash("sha256").update(source).digest("hex");
}

/** Compiles (or returns the cached compilation of) a template source. */
export async function compileTemplate(source: string): Promise<CompiledTemplate> {
  if (typeof source !== "string" || source.trim() === "")
    throw new TemplateError("compile_error", "the template source is empty");
  if (source.length > MAX_SOURCE_CHARS) {
    throw new TemplateError(
      "source_too_large",
      `the template source has ${source.length} characters; the limit is ${MAX_SOURCE_CHARS}`,
    );
  }
  const id = sourceId(source);
  const hit = cache.get(id);
  if (hit) {
    cache.delete(id);
    cache.set(id, hit);
    return hit;
  }
  const esbuild = await import("esbuild");
  let code: string;
  try {
    const result = await esbuild.build({
      stdin: { contents: source, loader: "tsx", sourcefile: "template.tsx" },
      ...BUILD_OPTIONS,
      // Keep every import as written (TypeScript would drop an unused one), so each is checked.
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
      plugins: [allowlist],
    });
    code = result.outputFiles[0]?.text ?? "";
  } catch (err) {
    throw compileError(err);
  }
  const compiled = { id, code };
  cache.set(id, compiled);
  if (cache.size > CACHE_MAX) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return compiled;
}

function compileError(err: unknown): TemplateError {
  const errors = (err as { errors?: Message[] }).errors;
  const first = errors?.[0];
  if (!first) return new TemplateError("compile_error", "the template could not be compiled");
  const where = first.location ? `line ${first.location.line}, column ${first.location.column + 1}: ` : "";
  const code = first.detail === "import_not_allowed" ? "import_not_allowed" : "compile_error";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length > 2 ? "s" : ""})` : "";
  return new TemplateError(code, `${where}${first.text}${more}`);
}

const files = new Map<string, { mtimeMs: number; compiled: CompiledTemplate }>();

/**
 * Compiles one of the product's own email files (`emails/*.tsx`): the same allowlist, plus relative
 * imports of other files inside `root` (their shared layout). Cached per file until it changes.
 */
export async function compileTemplateFile(file: string, root: string): Promise<CompiledTemplate> {
  const mtimeMs = fs.statSync(file).mtimeMs;
  const hit = files.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.compiled;
  const esbuild = await import("esbuild");
  const inside: Plugin = {
    name: "svc-system-email-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (ALLOWED.has(args.path)) return { path: args.path, external: true };
        if (args.kind === "entry-point") return undefined;
        const target = path.resolve(args.resolveDir, args.path);
        if (args.path.startsWith(".") && (target === root || target.startsWith(root + path.sep))) return undefined;
        return {
          errors: [
            {
              text: `import of "${args.path}" is not allowed in ${path.relative(root, args.importer)}`,
              detail: "import_not_allowed",
            },
          ],
        };
      });
    },
  };
  let code: string;
  try {
    const result = await esbuild.build({
      entryPoints: [file],
      ...BUILD_OPTIONS,
      resolveExtensions: [".tsx", ".ts", ".jsx", ".js"],
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: false } },
      plugins: [inside],
    });
    code = result.outputFiles[0]?.text ?? "";
  } catch (err) {
    throw compileError(err);
  }
  const compiled = { id: createHash("sha256").update(code).digest("hex"), code };
  files.set(file, { mtimeMs, compiled });
  return compiled;
}
