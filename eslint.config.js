import { readdirSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The channel ids: one folder per channel in lib/channels (tests/channels.test.ts checks they are
// the registry's CHANNEL_DEFINITIONS). Outside lib/channels no code names one.
const CHANNEL_IDS = readdirSync(`${import.meta.dirname}/lib/channels`, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const NOT_FORM_FIELDS = [
  ":not(CallExpression[callee.name=/^(inputRules|text)$/] > Literal)",
  ":not(CallExpression[callee.property.name='fieldError'] > Literal)",
  ":not(BinaryExpression[left.property.name='format'] > Literal)",
].join("");
const PROCESS_ENV = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message: "Read configuration from `@/lib/env` (the typed environment), not process.env.",
};
const NEXT_ONLY_IN_ADAPTERS = [
  {
    group: ["next", "next/*", "next-auth", "next-auth/*"],
    message: "lib/core and the domains are transport-free; adapters (lib/http, lib/console) use Next.js.",
  },
];

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
      "no-restricted-syntax": ["error", PROCESS_ENV],
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
          patterns: NEXT_ONLY_IN_ADAPTERS,
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
    // One list of channels (docs/ARCHITECTURE.md, "Channels"): outside lib/channels nothing
    // branches on a channel id. A string equal to one is refused (derive from the registry:
    // CHANNEL_DEFINITIONS, INBOX_ADDRESS_CHANNEL, an adapter's handleKinds, …). Not channel ids: JSX
    // attribute values and type literals (`name="email"` is a form field), the console's form-field
    // helpers' field names (`inputRules(body, "email")`, `fieldError("email")`, `text("email")`) and
    // JSON Schema's `format` (`s.format === "email"`).
    files: [
      "lib/messages/**/*.ts",
      "lib/inboxes/**/*.ts",
      "lib/contacts/**/*.ts",
      "lib/audiences/**/*.ts",
      "components/**/*.ts",
      "components/**/*.tsx",
      "app/**/*.ts",
      "app/**/*.tsx",
    ],
    rules: {
      "no-restricted-syntax": [
        "error",
        PROCESS_ENV,
        {
          selector: `Literal[value=/^(${CHANNEL_IDS.join("|")})$/]:not(JSXAttribute > Literal):not(TSLiteralType > Literal)${NOT_FORM_FIELDS}`,
          message:
            "A channel id outside lib/channels: derive it from the channel registry (lib/channels/definitions.ts, lib/channels/index.ts).",
        },
        {
          selector: `TemplateElement[value.cooked=/^(${CHANNEL_IDS.join("|")})$/]`,
          message: "A channel id outside lib/channels: derive it from the channel registry.",
        },
      ],
    },
  },
  {
    // The message pipeline sees channels only through the port and the registry, never a channel's folder.
    files: ["lib/messages/**/*.ts"],
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
            ...NEXT_ONLY_IN_ADAPTERS,
            {
              regex: `^(@/lib/channels/|\\.\\./\\.\\./channels/|\\.\\./channels/)(${CHANNEL_IDS.join("|")})(/|$)`,
              message:
                "lib/messages never imports a channel's folder: use the port (lib/channels/port.ts) and the registry (lib/channels).",
            },
          ],
        },
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
                "^@/(?!lib/core/|lib/[\\w-]+/contracts$|lib/auth/scopes$|lib/auth/ip$|lib/channels/definitions$|lib/channels/fields$|db/schema/[\\w-]+$)",
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
      "lib/runtime/process-env.ts",
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
