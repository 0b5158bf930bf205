import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: [".next/**", "node_modules/**", ".data/**", "next-env.d.ts", "db/migrations/**", "test-results/**", "playwright-report/**"] },
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
    // Layering: route handlers and pages call services; they never touch the database layer.
    files: ["app/**/*.ts", "app/**/*.tsx", "components/**/*.tsx", "components/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/db", "@/db/*", "**/db", "**/db/*"], message: "app/ and components/ call services in lib/, never db/." }] },
      ],
    },
  },
  {
    // Services never see HTTP.
    files: ["lib/**/*.ts"],
    ignores: ["lib/api/**"],
    rules: {
      "no-restricted-imports": ["error", { paths: [{ name: "next/server", message: "Services in lib/ never see HTTP types." }] }],
    },
  },
  {
    // Entry points load the environment before the typed module parses it.
    files: ["lib/env.ts", "server.ts", "cli/**/*.ts", "tests/**/*.ts", "bench/**/*.ts", "*.config.ts", "*.config.js", "e2e/**/*.ts"],
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
