import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import type { Plugin } from "esbuild";
import { projectRoot } from "@/lib/env";

/**
 * The sandbox's runtime: `sandbox/entry.ts` with React, React DOM's synchronous string renderer and
 * the react-email components, bundled once per process by esbuild into one script that every
 * sandbox context evaluates before any template. Built from the installed packages (no generated
 * file is committed), in about a tenth of a second.
 */
export interface SandboxRuntime {
  code: string;
  /** sha256 of the code: part of every compiled module's cache key. */
  hash: string;
}

const STUBBED = new Set(["@react-email/tailwind", "@react-email/code-block", "@react-email/render"]);

function runtimePlugin(): Plugin {
  const require = createRequire(path.join(projectRoot, "package.json"));
  const reactDomDir = path.dirname(require.resolve("react-dom/package.json"));
  return {
    name: "svc-sandbox-runtime",
    setup(build) {
      build.onResolve({ filter: /^react-dom\/server$/ }, () => ({
        path: path.join(reactDomDir, "cjs", "react-dom-server-legacy.browser.production.js"),
      }));
      build.onResolve({ filter: /^@react-email\/(tailwind|code-block|render)$/ }, (args) =>
        STUBBED.has(args.path) ? { path: args.path, namespace: "svc-stub" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "svc-stub" }, () => ({ contents: "export {};", loader: "js" }));
    },
  };
}

let building: Promise<SandboxRuntime> | null = null;

export function sandboxRuntime(): Promise<SandboxRuntime> {
  building ??= buildRuntime().catch((err: unknown) => {
    building = null;
    throw err;
  });
  return building;
}

async function buildRuntime(): Promise<SandboxRuntime> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [path.join(projectRoot, "lib", "templates", "render", "sandbox", "entry.ts")],
    absWorkingDir: projectRoot,
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [runtimePlugin()],
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no sandbox runtime");
  const code = file.text;
  return { code, hash: createHash("sha256").update(code).digest("hex") };
}
