import fs from "node:fs";
import { type Command, Option } from "commander";
import { z } from "zod";
import type { DomainManifest } from "../lib/core/domain";
import type { AnyOperation } from "../lib/core/operation";

/**
 * `svc <domain> <verb>`: every HTTP operation of the registry with `surfaces.cli`, as a command
 * that calls the API over HTTP with a key (the CLI is a client like any other: the server's
 * `invoke` authorizes and validates). Path parameters are positional arguments; query and body
 * fields are flags derived from the contract (`--inbox-id`, repeatable for lists, JSON for objects),
 * `--body <json|@file>` supplies a whole body. Output: a table or key/value lines for people,
 * the response as JSON with `--json`. `svc events tail` follows the event stream.
 */

type JsonSchema = {
  type?: string | string[];
  items?: JsonSchema;
  enum?: unknown[];
  description?: string;
  anyOf?: JsonSchema[];
  default?: unknown;
};

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Base URL and key, after `--url`/`--key` and the environment. */
  connection: (cmd: Command) => { url: string; key: string | null; json: boolean };
  fetch: typeof fetch;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

/** The domain's noun forms, removed from an operation's name to get its verb (`listInboxes` → `list`). */
function nouns(domain: string): string[] {
  const plural = domain; // folder names are plural: inboxes, api-keys, webhooks, messages, events
  const singular = plural.endsWith("ies")
    ? plural.slice(0, -3) + "y"
    : plural.endsWith("xes") || plural.endsWith("ses")
      ? plural.slice(0, -2)
      : plural.replace(/s$/, "");
  return [plural, singular];
}

/** `svc <domain> <verb>` for an operation: the override in `surfaces.cli.command`, else the id without the domain noun. */
export function verbOf(domain: string, op: AnyOperation): string {
  const custom = typeof op.surfaces.cli === "object" ? op.surfaces.cli.command : undefined;
  if (custom) return custom;
  let name = kebab(op.id);
  for (const noun of nouns(domain)) {
    const re = new RegExp(`(^|-)${noun}(-|$)`);
    if (re.test(name)) {
      name = name.replace(re, (_m, a: string, b: string) => (a && b ? "-" : "")).replace(/^-|-$/g, "");
      break;
    }
  }
  return name || kebab(op.id);
}

export function isCliOperation(op: AnyOperation): boolean {
  const c = op.contract;
  return op.surfaces.http && Boolean(op.surfaces.cli) && c.status === "live" && c.access !== "session";
}

function fieldsOf(
  schema: z.ZodObject | z.ZodType | undefined,
): { name: string; json: JsonSchema; required: boolean }[] {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({ name, json: s, required: required.has(name) }));
}

function typeOf(json: JsonSchema): string {
  const types = json.type
    ? Array.isArray(json.type)
      ? json.type
      : [json.type]
    : (json.anyOf ?? []).flatMap((s) => (s.type ? (Array.isArray(s.type) ? s.type : [s.type]) : []));
  const real = types.filter((t) => t !== "null");
  if (json.enum) return "string";
  return real[0] ?? "json";
}

function parseJson(value: string, flag: string): unknown {
  const text = value.startsWith("@") ? fs.readFileSync(value.slice(1), "utf8") : value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError(`${flag} takes JSON (or @file with JSON); got ${JSON.stringify(value.slice(0, 60))}.`, 2);
  }
}

/** A flag's value as the field's JSON type. */
function coerce(raw: unknown, json: JsonSchema, flag: string): unknown {
  const type = typeOf(json);
  if (type === "array") {
    const items = Array.isArray(raw) ? (raw as string[]) : [String(raw)];
    const itemType = json.items ? typeOf(json.items) : "string";
    if (items.length === 1 && items[0]?.trim().startsWith("[")) return parseJson(items[0], flag);
    return items.map((v) =>
      itemType === "object" || itemType === "json" ? parseJson(v, flag) : coerce(v, json.items ?? {}, flag),
    );
  }
  if (raw === true || raw === false) return raw;
  const value = String(raw);
  if (type === "integer" || type === "number") {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new CliError(`${flag} takes a number; got ${JSON.stringify(value)}.`, 2);
    return n;
  }
  if (type === "boolean") return value === "true" || value === "1" || value === "yes";
  if (type === "object" || type === "json") return parseJson(value, flag);
  return value;
}

/** The first array in a response (`inboxes`, `data`, `apiKeys`, …) with its key. */
function listIn(data: Record<string, unknown>): [string, Record<string, unknown>[]] | null {
  for (const [k, v] of Object.entries(data))
    if (Array.isArray(v) && (v.length === 0 || (typeof v[0] === "object" && v[0] !== null)))
      return [k, v as Record<string, unknown>[]];
  return null;
}

const PREFERRED = [
  "id",
  "name",
  "address",
  "subject",
  "type",
  "status",
  "direction",
  "channel",
  "from",
  "to",
  "url",
  "prefix",
  "scopes",
  "createdAt",
  "lastMessageAt",
];

function cell(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(cell).join(", ");
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o.address === "string") return o.address;
    return JSON.stringify(v);
  }
  return typeof v === "string" ? v : JSON.stringify(v);
}

export function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "(none)\n";
  const first = rows[0] ?? {};
  const keys = Object.keys(first);
  let columns = PREFERRED.filter((k) => keys.includes(k));
  if (columns.length < 2) columns = keys.filter((k) => typeof first[k] !== "object" || first[k] === null).slice(0, 6);
  columns = columns.slice(0, 7);
  const cells = rows.map((r) => columns.map((c) => cell(r[c]).replace(/\s+/g, " ").slice(0, 60)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n") + "\n";
}

/** A response for people: the list as a table (and the next cursor), else `key: value` lines. */
export function humanize(data: unknown): string {
  if (data === null || typeof data !== "object") return `${JSON.stringify(data)}\n`;
  const obj = data as Record<string, unknown>;
  const list = listIn(obj);
  if (list) {
    const pagination = obj.pagination as { nextCursor?: string | null } | undefined;
    const next = pagination?.nextCursor ?? (typeof obj.nextCursor === "string" ? obj.nextCursor : null);
    return table(list[1]) + (next ? `next cursor: ${next}\n` : "");
  }
  // `{inbox: {...}}` → the inbox's fields; other top-level scalars (a `secret`) stay beside them.
  const lines: string[] = [];
  const emit = (prefix: string, value: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(value)) {
      if (v !== null && typeof v === "object" && !Array.isArray(v) && prefix === "" && Object.keys(obj).length <= 3)
        emit(`${k}.`, v as Record<string, unknown>);
      else lines.push(`${prefix}${k}: ${cell(v)}`);
    }
  };
  emit("", obj);
  return lines.join("\n") + "\n";
}

/** Calls the API; the response data, or a CliError from the error envelope. */
export async function callApi(
  io: CliIo,
  cmd: Command,
  method: string,
  path: string,
  query: Record<string, unknown>,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<unknown> {
  const { url, key } = io.connection(cmd);
  const target = new URL(path, url.endsWith("/") ? url : `${url}/`);
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? (v as unknown[]) : [v])
      target.searchParams.append(k, typeof item === "string" ? item : JSON.stringify(item));
  }
  const headers: Record<string, string> = { accept: "application/json", ...extraHeaders };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await io.fetch(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new CliError(
      `Cannot reach ${url}: ${err instanceof Error ? err.message : String(err)}. Set SVC_URL or --url.`,
    );
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const e = (data as { error?: { code?: string; message?: string; param?: string | null } } | null)?.error;
    throw new CliError(
      e
        ? `${e.code}: ${e.message}${e.param ? ` (param: ${e.param})` : ""}`
        : `HTTP ${res.status}: ${text.slice(0, 200)}`,
    );
  }
  return data;
}

function addOperation(io: CliIo, group: Command, domain: string, op: AnyOperation): void {
  const c = op.contract;
  const pathParams = Object.keys(c.params?.shape ?? {});
  const flags = [
    ...fieldsOf(c.query).map((f) => ({ ...f, in: "query" as const })),
    ...fieldsOf(c.body).map((f) => ({ ...f, in: "body" as const })),
  ];
  const cmd = group
    .command(verbOf(domain, op))
    .description(
      `${c.summary} (${c.method} ${c.path}${c.access === "public" ? "" : c.access === "key" ? ", any key" : `, scope ${c.access}`})`,
    );
  for (const p of pathParams) cmd.argument(`<${p}>`);
  for (const f of flags) {
    const type = typeOf(f.json);
    const flag = `--${kebab(f.name)}`;
    const desc = [
      f.json.description,
      f.json.enum ? `one of ${f.json.enum.join(", ")}` : null,
      f.required ? "required" : null,
    ]
      .filter(Boolean)
      .join("; ");
    let option: Option;
    if (type === "boolean") option = new Option(`${flag} [value]`, desc || "true or false (the flag alone is true)");
    else if (type === "array")
      option = new Option(`${flag} <value...>`, `${desc ? `${desc}; ` : ""}repeat or list values`);
    else option = new Option(`${flag} <value>`, desc + (type === "object" || type === "json" ? " (JSON)" : ""));
    cmd.addOption(option);
  }
  if (c.body) cmd.option("--body <json>", "the whole request body as JSON (or @file); flags override its fields");
  // The header, unless the body has its own `idempotencyKey` field (the contract's fallback for it).
  if (c.idempotent && !flags.some((f) => f.name === "idempotencyKey"))
    cmd.option("--idempotency-key <key>", "Idempotency-Key header");
  cmd.action(async (...args: unknown[]) => {
    const self = args[args.length - 1] as Command;
    const opts = self.opts<Record<string, unknown>>();
    const params = Object.fromEntries(pathParams.map((p, i) => [p, String(args[i])]));
    const path = c.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ""));
    const query: Record<string, unknown> = {};
    let body: Record<string, unknown> | undefined = c.body ? {} : undefined;
    if (c.body && typeof opts.body === "string") {
      const given = parseJson(opts.body, "--body");
      if (given === null || typeof given !== "object" || Array.isArray(given))
        throw new CliError("--body takes a JSON object.", 2);
      body = given as Record<string, unknown>;
    }
    for (const f of flags) {
      const key = f.name.replace(/-([a-z])/g, (_m, ch: string) => ch.toUpperCase());
      const raw = opts[key] ?? opts[f.name];
      if (raw === undefined) continue;
      const value = coerce(raw, f.json, `--${kebab(f.name)}`);
      if (f.in === "query") query[f.name] = value;
      else if (body) body[f.name] = value;
    }
    const headerKey = flags.some((f) => f.name === "idempotencyKey") ? undefined : opts.idempotencyKey;
    const headers: Record<string, string> = typeof headerKey === "string" ? { "Idempotency-Key": headerKey } : {};
    const data = await callApi(io, self, c.method, path, query, body, headers);
    io.out(io.connection(self).json ? `${JSON.stringify(data, null, 2)}\n` : humanize(data));
  });
}

/** `svc events tail`: the stream from now (or `--since`), long-polling; one line per event until interrupted. */
function addTail(io: CliIo, events: Command): void {
  events
    .command("tail")
    .description("Follow the event stream live (long-polls GET /v1/events; scope events:read). Stops with Ctrl-C.")
    .option("--since <cursor>", "start after this cursor instead of now")
    .option("--from-start", "start from the oldest event")
    .option("--inbox-id <id>", "only one inbox's events")
    .option("--type <type>", "only one event type")
    .option("--count <n>", "stop after n events")
    .action(
      async (
        opts: { since?: string; fromStart?: boolean; inboxId?: string; type?: string; count?: string },
        self: Command,
      ) => {
        const filters = { inboxId: opts.inboxId, type: opts.type };
        let cursor: string | null | undefined = opts.since;
        if (!cursor && !opts.fromStart) {
          const head = (await callApi(io, self, "GET", "/v1/events", { ...filters, tail: "true" }, undefined)) as {
            pagination: { nextCursor: string | null };
          };
          cursor = head.pagination.nextCursor;
        }
        const json = io.connection(self).json;
        let left = opts.count ? Number(opts.count) : Infinity;
        if (!json) io.err(`Following events${cursor ? ` after ${cursor}` : ""}… (Ctrl-C to stop)\n`);
        while (left > 0) {
          const page = (await callApi(
            io,
            self,
            "GET",
            "/v1/events",
            { ...filters, since: cursor ?? undefined, wait: 12, limit: Math.min(100, left) },
            undefined,
          )) as {
            data: {
              eventId: string;
              type: string;
              createdAt: string;
              inboxId: string | null;
              data: Record<string, unknown>;
            }[];
            pagination: { nextCursor: string | null };
          };
          for (const e of page.data) {
            const subject = typeof e.data.subject === "string" ? ` ${JSON.stringify(e.data.subject)}` : "";
            io.out(
              json
                ? `${JSON.stringify(e)}\n`
                : `${e.createdAt}  ${e.type.padEnd(20)} ${e.eventId}${e.inboxId ? `  inbox ${e.inboxId}` : ""}${subject}\n`,
            );
            left--;
          }
          if (page.pagination.nextCursor) cursor = page.pagination.nextCursor;
        }
      },
    );
}

/** Adds `svc <domain> <verb>` for every CLI operation of the domains, and `svc events tail`. */
export function addApiCommands(program: Command, domains: readonly DomainManifest[], io: CliIo): void {
  for (const domain of domains) {
    const ops = domain.operations.filter(isCliOperation);
    if (ops.length === 0) continue;
    const group = program
      .command(domain.name)
      .description(`${domain.tag}: ${ops.length} operation${ops.length === 1 ? "" : "s"}`);
    for (const op of ops) addOperation(io, group, domain.name, op);
    if (domain.name === "events") addTail(io, group);
  }
}
