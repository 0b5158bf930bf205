import { z } from "zod";
import type { Db } from "@/db";
import { bootstrap } from "@/lib/organizations/bootstrap";

/**
 * Operator commands shared by the CLI (run in-process when it may open the database) and the
 * server's control channel (when a running server owns the embedded database).
 */
export const COMMANDS = {
  bootstrap: {
    args: z.strictObject({
      email: z.email(),
      org: z.string().trim().min(1).max(120),
      keyName: z.string().trim().min(1).max(120).optional(),
    }),
    run: (db: Db, a: { email: string; org: string; keyName?: string }) =>
      bootstrap(db, { email: a.email, orgName: a.org, keyName: a.keyName }),
  },
} as const;

export type CommandName = keyof typeof COMMANDS;

export function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** Validates and runs a command against `db`. */
export async function runCommand(db: Db, name: string, rawArgs: unknown): Promise<unknown> {
  if (!isCommand(name)) throw new Error(`Unknown command "${name}".`);
  const command = COMMANDS[name];
  const parsed = command.args.safeParse(rawArgs);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid --${String(issue?.path[0] ?? "argument")}: ${issue?.message ?? "invalid"}`);
  }
  return command.run(db, parsed.data);
}
