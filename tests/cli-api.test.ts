import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addApiCommands, isCliOperation, verbOf } from "@/cli/api-commands";
import { env } from "@/lib/env";
import { DOMAINS } from "@/lib/registry";
import { startAppServer, type AppServer } from "./app-server";
import { newKey, newOrg, type TestOrg } from "./harness";

/**
 * The CLI's API commands as a real process (`node --import tsx cli/svc.ts …`) against the app over
 * HTTP: tables for people, JSON for scripts, errors on stderr with the exit code, `events tail`
 * following the stream; and the command tree covers every CLI operation of the registry.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "..");
const ARGS = ["--import", "tsx", "cli/svc.ts"];

let app: AppServer;
let org: TestOrg;
beforeAll(async () => {
  app = await startAppServer();
  org = await newOrg();
});
afterAll(async () => {
  await app?.close();
});

function cliEnv(key: string | null): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "development", SVC_URL: app.url, LOG_LEVEL: "error" };
  if (key) e.SVC_API_KEY = key;
  else delete e.SVC_API_KEY;
  delete e.VITEST;
  delete e.VITEST_WORKER_ID;
  return e;
}

async function svc(
  args: string[],
  key: string | null = org.secret,
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await run(process.execPath, [...ARGS, ...args], { cwd: ROOT, env: cliEnv(key), timeout: 90_000 });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? "", stderr: e.stderr ?? "", code: e.code ?? 1 };
  }
}

test("every CLI operation of the registry is a `svc <domain> <verb>` command, with its path parameters as arguments", () => {
  const program = new Command("svc");
  addApiCommands(program, DOMAINS, {
    out: () => {},
    err: () => {},
    fetch,
    connection: () => ({ url: "http://x", key: null, json: true }),
  });
  for (const domain of DOMAINS) {
    for (const op of domain.operations.filter(isCliOperation)) {
      const group = program.commands.find((c) => c.name() === domain.name);
      const cmd = group?.commands.find((c) => c.name() === verbOf(domain.name, op));
      expect(cmd, `${domain.name} ${verbOf(domain.name, op)} (${op.id})`).toBeDefined();
      expect(cmd?.registeredArguments.map((a) => a.name())).toEqual(Object.keys(op.contract.params?.shape ?? {}));
    }
  }
  expect(program.commands.find((c) => c.name() === "events")?.commands.map((c) => c.name())).toEqual(
    expect.arrayContaining(["list", "replay", "tail"]),
  );
  expect(
    program.commands
      .find((c) => c.name() === "inboxes")
      ?.commands.map((c) => c.name())
      .sort(),
  ).toEqual(["create", "delete", "get", "list", "update"]);
  expect(program.commands.find((c) => c.name() === "messages")?.commands.map((c) => c.name())).toEqual(
    expect.arrayContaining(["send", "list", "get", "list-threads", "get-thread"]),
  );
});

describe("svc against the running app", () => {
  test("create and list inboxes, send, read back; table for people, JSON for scripts", async () => {
    const address = `cli-${Date.now()}@${env.SHARED_DOMAIN}`;
    const created = await svc(["inboxes", "create", "--address", address, "--display-name", "CLI inbox", "--json"]);
    expect(created.stderr).toBe("");
    const inbox = (JSON.parse(created.stdout) as { inbox: { id: string; address: string } }).inbox;
    expect(inbox.address).toBe(address);

    const table = await svc(["inboxes", "list"]);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split("\n");
    expect(header).toMatch(/^ID\s+ADDRESS\s+/);
    expect(rows.some((r) => r.startsWith(inbox.id) && r.includes(address))).toBe(true);

    const got = await svc(["inboxes", "get", inbox.id]);
    expect(got.stdout).toContain(`inbox.address: ${address}`);

    const peer = `cli-peer-${Date.now()}@${env.SHARED_DOMAIN}`;
    const peerInbox = (
      JSON.parse((await svc(["inboxes", "create", "--address", peer, "--json"])).stdout) as { inbox: { id: string } }
    ).inbox;
    const sent = await svc([
      "messages",
      "send",
      "--inbox-id",
      inbox.id,
      "--to",
      peer,
      "--subject",
      "From the CLI",
      "--text",
      "hello",
      "--idempotency-key",
      "cli-1",
      "--json",
    ]);
    expect(JSON.parse(sent.stdout)).toMatchObject({ status: "sent", channel: "a2a" });
    const listed = JSON.parse(
      (await svc(["messages", "list", "--inbox-id", peerInbox.id, "--direction", "inbound", "--json"])).stdout,
    ) as { messages: { subject: string }[] };
    expect(listed.messages.map((m) => m.subject)).toEqual(["From the CLI"]);
    const threads = await svc(["messages", "list-threads", "--inbox-id", peerInbox.id]);
    expect(threads.stdout).toContain("From the CLI");

    // A whole body as JSON, with a flag overriding one field.
    const viaBody = await svc([
      "messages",
      "send",
      "--body",
      JSON.stringify({ inboxId: inbox.id, to: [peer], text: "body json", subject: "x" }),
      "--subject",
      "Overridden",
      "--dry-run",
      "--json",
    ]);
    expect(viaBody.code).toBe(0);
    expect(JSON.parse(viaBody.stdout)).toMatchObject({ subject: "Overridden" });
  }, 240_000);

  test("errors: the envelope on stderr with exit code 1; usage errors and no key are refused", async () => {
    const narrow = await newKey(org, { scopes: ["inboxes:read"] });
    const refused = await svc(["api-keys", "list"], narrow.secret);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^scope_missing: .*keys:read/);
    const invalid = await svc(["messages", "list", "--limit", "1000"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^invalid_request: .*\(param: limit\)/);
    const noKey = await svc(["inboxes", "list"], null);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/^missing_api_key/);
    const usage = await svc(["inboxes", "get"]);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain("missing required argument");
    const unknown = await svc(["frobnicate"]);
    expect(unknown.stderr).toContain("Unknown command");
    const help = await svc(["--help"]);
    expect(help.stdout).toMatch(/inboxes\s+Inboxes/);
  }, 240_000);

  test("`svc events tail` follows the stream live", async () => {
    const inbox = (
      JSON.parse(
        (await svc(["inboxes", "create", "--address", `tail-${Date.now()}@${env.SHARED_DOMAIN}`, "--json"])).stdout,
      ) as { inbox: { id: string } }
    ).inbox;
    const peer = (
      JSON.parse(
        (await svc(["inboxes", "create", "--address", `tail-peer-${Date.now()}@${env.SHARED_DOMAIN}`, "--json"]))
          .stdout,
      ) as { inbox: { address: string } }
    ).inbox;
    const child = spawn(
      process.execPath,
      [...ARGS, "events", "tail", "--inbox-id", inbox.id, "--count", "1", "--json"],
      { cwd: ROOT, env: cliEnv(org.secret) },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    // The tail starts at the stream's head; send until it has seen one (a send before it was
    // listening is behind its cursor, so keep sending until the tail prints).
    let sends = 0;
    while (child.exitCode === null && sends < 20) {
      await svc([
        "messages",
        "send",
        "--inbox-id",
        inbox.id,
        "--to",
        peer.address,
        "--subject",
        `tail ${sends}`,
        "--text",
        "x",
      ]);
      sends++;
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    }
    expect(await exited, err).toBe(0);
    const event = JSON.parse(out.trim().split("\n")[0] ?? "{}") as { type: string; inboxId: string };
    expect(event.inboxId).toBe(inbox.id);
    expect(["message.sent", "message.received"]).toContain(event.type);
  }, 300_000);
});
