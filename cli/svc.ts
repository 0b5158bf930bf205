/**
 * `npm run svc -- <command>`: the product's command line.
 *
 *   bootstrap --email <e> --org <name> [--key-name <n>] [--json]
 *       Creates (or reuses) the user and their organization and prints a new admin API key once.
 *
 * With PostgreSQL (DATABASE_URL) the CLI talks to the database directly. With the embedded
 * database it opens the data directory only when no server holds it; otherwise it sends the
 * command over the server's control socket inside the data directory.
 */
import { parseArgs } from "node:util";
import nextEnv from "@next/env";

nextEnv.loadEnvConfig(process.cwd(), process.env.NODE_ENV !== "production");
const { env, pgliteDir } = await import("../lib/env");
const { lockHolder } = await import("../db/lock");
const { closeDb, getDb } = await import("../db");
const { runCommand, isCommand } = await import("../lib/runtime/commands");
const { sendControlCommand } = await import("../lib/runtime/control");

const USAGE = `Usage: npm run svc -- <command> [options]

Commands:
  bootstrap --email <email> --org <name> [--key-name <name>] [--json]
      Create the user and organization (or reuse them) and print a new admin API key once.
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function execute(command: string, args: Record<string, unknown>): Promise<unknown> {
  const dir = env.DATABASE_URL ? null : pgliteDir();
  if (dir) {
    const holder = lockHolder(dir);
    if (holder !== null && holder !== process.pid) {
      try {
        return await sendControlCommand(dir, command, args);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ECONNREFUSED") {
          fail(`A server (pid ${holder}) holds ${dir} but its control socket does not answer. Wait for it to finish starting, or stop it and retry.`);
        }
        throw err;
      }
    }
  }
  try {
    return await runCommand(await getDb(), command, args);
  } finally {
    await closeDb();
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === "help" || command === "--help") {
    process.stdout.write(USAGE);
    return;
  }
  if (!isCommand(command)) fail(`Unknown command "${command}".\n\n${USAGE}`);
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: "string" }, org: { type: "string" }, "key-name": { type: "string" }, json: { type: "boolean", default: false } },
    strict: true,
  });
  const result = (await execute(command, { email: values.email, org: values.org, keyName: values["key-name"] })) as {
    secret: string;
    apiKey: { id: string; prefix: string; scopes: string[] };
    organization: { id: string; name: string; slug: string };
    user: { id: string; email: string };
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ secret: result.secret, apiKey: result.apiKey, organization: result.organization, user: result.user }, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    [
      `Organization: ${result.organization.name} (${result.organization.id})`,
      `User:         ${result.user.email} (${result.user.id})`,
      `API key:      ${result.apiKey.prefix}… (${result.apiKey.id}), scopes: ${result.apiKey.scopes.join(", ")}`,
      "",
      "Secret (shown once; store it now):",
      `  ${result.secret}`,
      "",
    ].join("\n"),
  );
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
