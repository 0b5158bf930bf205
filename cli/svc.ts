/**
 * `npm run svc -- <command>`: the product's command line.
 *
 *   bootstrap --email <e> --org <name> [--key-name <n>] [--json]
 *       Creates (or reuses) the user and their organization and prints a new admin API key once.
 *       With PostgreSQL (DATABASE_URL) it talks to the database directly. With the embedded
 *       database it opens the data directory only when no server holds it; otherwise it sends the
 *       command over the server's control socket inside the data directory.
 *
 *   <domain> <verb> [args] [flags]      every API operation (cli/api-commands.ts), over HTTP
 *   events tail                         follows the event stream
 *   compliance verify <export.json>     checks an audit export offline (chain, manifests, gaps)
 *       Key from SVC_API_KEY or --key, base URL from SVC_URL or --url; --json for scripts.
 */
import { Command, CommanderError } from "commander";
import nextEnv from "@next/env";

nextEnv.loadEnvConfig(process.cwd(), process.env.NODE_ENV !== "production");
const { env, pgliteDir } = await import("../lib/env");
const { addApiCommands, CliError } = await import("./api-commands");
const { DOMAINS } = await import("../lib/registry");

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function execute(command: string, args: Record<string, unknown>): Promise<unknown> {
  const { lockHolder } = await import("../db/lock");
  const { closeDb, getDb } = await import("../db");
  const { runCommand } = await import("../lib/runtime/commands");
  const { sendControlCommand } = await import("../lib/runtime/control");
  const dir = env.DATABASE_URL ? null : pgliteDir();
  if (dir) {
    const holder = lockHolder(dir);
    if (holder !== null && holder !== process.pid) {
      try {
        return await sendControlCommand(dir, command, args);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ECONNREFUSED") {
          fail(
            `A server (pid ${holder}) holds ${dir} but its control socket does not answer. Wait for it to finish starting, or stop it and retry.`,
          );
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

async function bootstrap(values: { email?: string; org?: string; keyName?: string; json?: boolean }): Promise<void> {
  const result = (await execute("bootstrap", { email: values.email, org: values.org, keyName: values.keyName })) as {
    secret: string;
    apiKey: { id: string; prefix: string; scopes: string[] };
    organization: { id: string; name: string; slug: string };
    user: { id: string; email: string };
  };
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ secret: result.secret, apiKey: result.apiKey, organization: result.organization, user: result.user }, null, 2)}\n`,
    );
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

const program = new Command("svc")
  .description(
    "The messaging service's command line: bootstrap a deployment, and every API operation as `svc <domain> <verb>`.",
  )
  .option("--key <key>", "API key (default: SVC_API_KEY)")
  .option("--url <url>", "base URL of the service (default: SVC_URL, else http://localhost:3000)")
  .option("--json", "print responses as JSON (for scripts)")
  .showSuggestionAfterError(true)
  .exitOverride();

program
  .command("bootstrap")
  .description("Create the user and organization (or reuse them) and print a new admin API key once.")
  .option("--email <email>", "the owner's email")
  .option("--org <name>", "the organization's name")
  .option("--key-name <name>", "the new key's name")
  .option("--json", "print {secret, apiKey, organization, user} as JSON")
  .action(async (opts: { email?: string; org?: string; keyName?: string; json?: boolean }) =>
    bootstrap({ ...opts, json: opts.json || program.opts<{ json?: boolean }>().json }),
  );

addApiCommands(program, DOMAINS, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  fetch,
  connection: (cmd) => {
    const root = cmd.optsWithGlobals<{ key?: string; url?: string; json?: boolean }>();
    const url = root.url ?? env.SVC_URL ?? "http://localhost:3000";
    if (!URL.canParse(url))
      throw new CliError(`The base URL ${JSON.stringify(url)} is not a URL (SVC_URL or --url).`, 2);
    const key = root.key ?? env.SVC_API_KEY ?? null;
    return { url, key, json: Boolean(root.json) };
  },
});

// Offline: no server, no key (lib/compliance/verify-command.ts).
program.commands
  .find((c) => c.name() === "compliance")
  ?.command("verify <file>")
  .description(
    "Verify a saved audit export offline: every rowHash, the links, gaps, each manifest's signature (exit 0 verified, 1 problems, 2 bad input).",
  )
  .option("--jwks <source>", "JWKS file or URL (default: <manifest issuer>/v1/agents/jwks)")
  .option(
    "--certificate <file>",
    "a signed deletion certificate explaining gaps (repeatable)",
    (v: string, all: string[]) => [...all, v],
    [] as string[],
  )
  .option("--require-explained-gaps", "fail on a gap no certificate explains")
  .action(
    async (
      file: string,
      opts: { jwks?: string; certificate: string[]; requireExplainedGaps?: boolean },
      cmd: Command,
    ) => {
      const { runVerify } = await import("../lib/compliance/verify-command");
      const json = Boolean(cmd.optsWithGlobals<{ json?: boolean }>().json);
      const status = await runVerify(
        file,
        { jwks: opts.jwks, certificates: opts.certificate, requireExplainedGaps: opts.requireExplainedGaps, json },
        { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
      );
      process.exit(status);
    },
  );

program.on("command:*", (operands: string[]) =>
  fail(`Unknown command "${operands[0]}". Run \`svc --help\` for the list.`, 2),
);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and version exit 0; usage errors were printed by commander.
    process.exit(err.exitCode);
  }
  fail(err instanceof Error ? err.message : String(err), err instanceof CliError ? err.exitCode : 1);
}
