import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules, not bundled.
  // esbuild (a native binary) and quickjs-emscripten (WebAssembly) are loaded by the template sandbox from node_modules.
  // The MCP SDK (lib/mcp) is loaded from node_modules as published rather than bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "postgres",
    "@node-rs/argon2",
    "esbuild",
    "quickjs-emscripten",
    "undici",
    "@modelcontextprotocol/sdk",
    // pdf.js (letter verification, lib/letters/pdf.ts) loads its worker module by a path beside its own
    // file: bundled, that file is missing from .next and every verify, preview and send fails.
    "pdfjs-dist",
  ],
  poweredByHeader: false,
  // The console must not be framed by other sites (clickjacking on Revoke, Delete, ...). The CSP is
  // left off `/files/`, `/storage/`, `/d/` and `/s/` (user content and share pages): a header set here replaces the route's own, and those routes set
  // their full policy themselves (lib/providers/storage/user-content.ts, lib/http/share.ts).
  headers: () =>
    Promise.resolve([
      { source: "/:path*", headers: [{ key: "X-Frame-Options", value: "DENY" }] },
      {
        source: "/((?!files/|storage/|d/|s/).*)",
        headers: [{ key: "Content-Security-Policy", value: "frame-ancestors 'none'" }],
      },
    ]),
  typedRoutes: false,
  experimental: {
    // The CLI test starts a second development server in this directory while a developer's
    // `npm run dev` may be running; it sets this variable so Next does not refuse to start.
    lockDistDir: process.env.SVC_UNLOCKED_DIST_DIR !== "1",
    // Server bundles keep their function names, so CPU profiles of the production server
    // (`node --cpu-prof`, README "Benchmarks") name the app's functions.
    serverMinification: false,
    // server.ts loads every route before it listens (awaited), instead of Next doing it in the
    // background while the first requests are served.
    preloadEntriesOnStart: false,
  },
};

export default nextConfig;
