import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "next-env.d.ts",
      "db/migrations/**",
      "test-results/**",
      "playwright-report/**",
      "sdk/schema.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-non-null-assertion": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Read configuration from `@/lib/env` (the typed environment), not process.env.",
        },
      ],
    },
  },
  {
    // Layering: route handlers, pages and components go through the operation core (or lib/console),
    // never the database layer; components never import server actions from app/ (they live in
    // lib/console/actions/).
    files: ["app/**/*.ts", "app/**/*.tsx", "components/**/*.tsx", "components/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/db", "@/db/*", "**/db", "**/db/*"],
              message: "app/ and components/ call operations and services in lib/, never db/.",
            },
            // A database handle re-exported through lib/ (the old lib/console/database.ts) is the same loophole.
            {
              group: ["@/**", "./**", "../**"],
              importNames: ["getDb"],
              message:
                "app/ and components/ never hold a database handle; call an operation (ctx.invoke) or a lib/console read.",
            },
            {
              group: ["@/app/**/actions", "**/app/**/actions"],
              message: "Server actions live in lib/console/actions/; components never import app/.",
            },
          ],
        },
      ],
    },
  },
  {
    // The operation core and the domain folders are transport-free: no Next.js, no Request/Response.
    // The adapters (lib/http, lib/console, lib/mcp) and the workflow executor's HTTP side may.
    files: ["lib/**/*.ts"],
    ignores: ["lib/http/**", "lib/console/**", "lib/mcp/**", "lib/workflows/executor/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "next/server",
              message: "lib/core and the domains never see HTTP types; adapters (lib/http, lib/console) do.",
            },
          ],
          patterns: [
            {
              group: ["next", "next/*", "next-auth", "next-auth/*"],
              message: "lib/core and the domains are transport-free; adapters (lib/http, lib/console) use Next.js.",
            },
          ],
        },
      ],
      "@typescript-eslint/no-restricted-types": [
        "error",
        {
          types: {
            Request: {
              message: "Operations take typed input, never a Request; the HTTP adapter (lib/http) reads requests.",
            },
            Response: {
              message: "Operations return data, never a Response; the HTTP adapter (lib/http) writes responses.",
            },
          },
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "Request", message: "The HTTP adapter (lib/http) reads requests." },
        { name: "Response", message: "The HTTP adapter (lib/http) writes responses." },
      ],
    },
  },
  {
    // A domain's contracts are client-safe: zod, the core, other contracts, and plain constants
    // (scopes, IP syntax, the enum values that live beside their tables in db/schema, the channel
    // registry's definitions: ids and public metadata schemas).
    files: ["lib/*/contracts.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex:
                "^@/(?!lib/core/|lib/[\\w-]+/contracts$|lib/auth/scopes$|lib/auth/ip$|lib/channels/definitions$|db/schema/[\\w-]+$)",
              message:
                "contracts.ts may import only zod, lib/core/*, other contracts.ts and enum constants (services and db clients stay out).",
            },
            { group: ["next", "next/*", "next-auth", "next-auth/*"], message: "Contracts are transport-free." },
          ],
        },
      ],
    },
  },
  {
    // Entry points load the environment before the typed module parses it.
    files: [
      "lib/env.ts",
      "server.ts",
      "cli/**/*.ts",
      "tests/**/*.ts",
      "bench/**/*.ts",
      "*.config.ts",
      "*.config.js",
      "e2e/**/*.ts",
    ],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    // Tests read JSON response bodies loosely; assertions check their shape.
    files: ["tests/**/*.ts", "e2e/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Workflow handlers are async by contract even when a test's body is synchronous.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    files: ["*.config.js", "*.config.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
);
