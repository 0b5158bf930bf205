import { defineConfig } from "drizzle-kit";

// drizzle-kit only generates SQL from the schema; it never connects to a database.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
  casing: "snake_case",
});
