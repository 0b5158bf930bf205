import { randomUUID } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Contract } from "@/lib/core/contract";
import { SCOPES } from "@/lib/auth/scopes";
import { declaredStatuses } from "@/lib/core/openapi";
import { openApiDocument } from "@/lib/meta/openapi";
import { HTTP_CONTRACTS } from "@/lib/registry";
import { env } from "@/lib/env";
import { startTelegramFake, type TelegramFake } from "./fakes/telegram";
import { call, callRaw, type CallOptions, newKey, newOrg, sessionCookie, type TestOrg } from "./harness";
import { paramNames, RESOURCE_FACTORIES, sentMessage } from "./resources";
import { type JsonSchema, type Path, pick, rng, sample, setAt, variants } from "./schema-walk";

/**
 * The fuzz suite: every live HTTP operation driven from its OpenAPI schemas with hostile values —
 * NUL bytes, huge strings, wrong types, unicode oddities (lone surrogates, RLO, BOM, combining
 * marks), negative and huge numbers, impossible dates, bad ids, malformed JSON and deep nesting —
 * in its path parameters, query, body and Idempotency-Key. It fails on any 5xx, on any status the
 * operation's OpenAPI entry does not declare, and on any body that does not match the declared
 * schema of its status. Deterministic: cases come from SEED (a failure names the case to replay),
 * and bounded: CASES per operation, reads first and deletions last, one organization.
 */
const SEED = 0x5eed_0010;
const CASES = 10;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const doc = openApiDocument() as {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
};
interface OpenApiOperation {
  parameters: { name: string; in: string; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

const ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));
ajv.addSchema(doc.components.schemas.Error ?? {}, "Error");
const validators = new Map<string, ReturnType<Ajv2020["compile"]>>();
function validatorFor(schema: JsonSchema, key: string) {
  let v = validators.get(key);
  if (!v) {
    v = schema.$ref === "#/components/schemas/Error" ? ajv.getSchema("Error") : ajv.compile(schema);
    if (!v) throw new Error(`no validator for ${key}`);
    validators.set(key, v);
  }
  return v;
}

// ---- hostile values ------------------------------------------------------------------------

const HOSTILE_STRINGS = [
  "",
  " ",
  "a\u0000b",
  "\u0000",
  "x".repeat(70_000),
  "\ud800",
  "a\udfffb",
  "\u202egnp.exe",
  "\ufeffbom",
  "e\u0301\u0301\u0301",
  "😀".repeat(300),
  "\u200b\u200d\u2060",
  "\u2028\u2029",
  "line\r\nX-Injected: 1",
  "%00%E0%A4%A",
  "../../../../etc/passwd",
  "<script>alert(1)</script>",
  "' OR '1'='1' --",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "Ǆ\u0130\u0131ß",
  "\u{10ffff}",
];
const HOSTILE_NUMBERS = [-1, 0, -0, 1.5, -2147483649, 2147483648, 2 ** 53 + 1, 1e308, -1e308, 5e-324];
const HOSTILE_IDS = [
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "01930000-0000-7000-8000-000000000000",
  "01930000-0000-7000-8000-00000000000G",
  "01930000-0000-7000-8000-0000000000001",
  "..",
  "%2e%2e",
  "1 OR 1=1",
  "\u00e9t\u00e9",
  "x".repeat(3000),
];
const HOSTILE_DATES = [
  "9999-12-31T23:59:59Z",
  "0000-01-01T00:00:00Z",
  "2026-02-30T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "1970-01-01T00:00:00+14:00",
  "2026-01-01",
];
const WRONG_TYPES: unknown[] = [true, null, [], {}, [null], { a: { b: { c: [] } } }, 0, "1", ["a", 1, null]];

/** A hostile value for a position of `schema`: of its own kind most of the time, of another otherwise. */
function hostileFor(schema: JsonSchema | undefined, random: () => number): unknown {
  const v = schema ? pick(random, variants(schema)) : {};
  const roll = random();
  if (roll < 0.25) return pick(random, WRONG_TYPES);
  const type = Array.isArray(v.type) ? v.type[0] : v.type;
  if (type === "integer" || type === "number") return pick(random, HOSTILE_NUMBERS);
  if (type === "array")
    return roll < 0.6
      ? Array.from({ length: 5000 }, () => pick(random, HOSTILE_STRINGS.slice(0, 4)))
      : [pick(random, HOSTILE_STRINGS)];
  if (type === "object")
    return roll < 0.6
      ? JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"k\\u0000":1}')
      : Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, "v"]));
  if (v.format === "uuid") return pick(random, HOSTILE_IDS);
  if (v.format === "date-time") return pick(random, HOSTILE_DATES);
  return pick(random, HOSTILE_STRINGS);
}

/** Every position of an object schema, as paths (properties, array items, map values), to a depth. */
function positions(schema: JsonSchema, path: Path = [], depth = 0): { path: Path; schema: JsonSchema }[] {
  const out: { path: Path; schema: JsonSchema }[] = [];
  if (depth > 4) return out;
  for (const v of variants(schema)) {
    for (const [name, prop] of Object.entries<JsonSchema>(v.properties ?? {})) {
      out.push({ path: [...path, name], schema: prop });
      out.push(...positions(prop, [...path, name], depth + 1));
    }
    if (v.items) {
      out.push({ path: [...path, 0], schema: v.items });
      out.push(...positions(v.items, [...path, 0], depth + 1));
    }
    if (v.additionalProperties && typeof v.additionalProperties === "object")
      out.push({ path: [...path, "X-Fuzz"], schema: v.additionalProperties });
  }
  return out;
}

// ---- cases ---------------------------------------------------------------------------------

interface Case {
  what: string;
  url: string;
  opts: CallOptions;
}

const hash = (s: string) => [...s].reduce((h, ch) => Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0, 2166136261);

function casesFor(c: Contract, ids: Record<string, string>, as: CallOptions): Case[] {
  const random = rng(SEED ^ hash(c.id));
  const op = doc.paths[c.path]?.[c.method.toLowerCase()];
  if (!op) throw new Error(`${c.id} is not in the OpenAPI document`);
  const bodySchema = op.requestBody?.content["application/json"]?.schema;
  const query = op.parameters.filter((p) => p.in === "query");
  const names = paramNames(c.path);
  const urlWith = (replace: Record<string, string> = {}) =>
    c.path.replace(/\{(\w+)\}/g, (_, n: string) => replace[n] ?? ids[n] ?? "missing");
  const validBody = () => (bodySchema ? (c.example ?? sample(bodySchema, random)) : undefined);
  const out: Case[] = [{ what: "a valid request", url: urlWith(), opts: { ...as, body: validBody() } }];
  const bodyPositions = bodySchema ? positions(bodySchema) : [];

  const kinds: (() => Case)[] = [];
  if (bodySchema && bodyPositions.length) {
    kinds.push(() => {
      const at = pick(random, bodyPositions);
      const value = hostileFor(at.schema, random);
      return {
        what: `body ${JSON.stringify(at.path)} = ${preview(value)}`,
        url: urlWith(),
        opts: { ...as, body: setAt(validBody(), at.path, value) },
      };
    });
    kinds.push(() => {
      const at = pick(random, bodyPositions);
      const value = hostileFor(at.schema, random);
      return {
        what: `body ${JSON.stringify(at.path)} = ${preview(value)}`,
        url: urlWith(),
        opts: { ...as, body: setAt(validBody(), at.path, value) },
      };
    });
  }
  if (c.method !== "GET" && c.method !== "DELETE") {
    kinds.push(() => {
      const raw = pick(random, [
        "{",
        "[1,",
        '{"a":1}garbage',
        "\u0000",
        "null",
        "[]",
        '"str"',
        "1e999",
        "[".repeat(60_000) + "]".repeat(60_000),
        `{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}`,
        '{"__proto__":{"admin":true}}',
      ]);
      return {
        what: `raw body ${preview(raw)}`,
        url: urlWith(),
        opts: { ...as, rawBody: raw, headers: { ...as.headers, "content-type": "application/json" } },
      };
    });
  }
  if (names.length) {
    kinds.push(() => {
      const name = pick(random, names);
      const bad = pick(random, HOSTILE_IDS);
      return {
        what: `path ${name} = ${preview(bad)}`,
        url: urlWith({ [name]: encodeURIComponent(bad) }),
        opts: { ...as, body: validBody() },
      };
    });
  }
  kinds.push(() => {
    const p =
      query.length && random() < 0.8
        ? pick(random, query)
        : { name: pick(random, ["fuzz", "limit", "cursor", "__proto__", "a[b]", "x".repeat(300)]), schema: {} };
    const value = hostileFor(p.schema, random);
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const search = new URLSearchParams();
    search.append(p.name, text);
    if (random() < 0.3) search.append(p.name, "again");
    return {
      what: `query ${p.name} = ${preview(text)}`,
      url: `${urlWith()}?${search.toString()}`,
      opts: { ...as, body: validBody() },
    };
  });
  if (c.idempotent && c.access !== "public") {
    kinds.push(() => {
      const key = pick(random, ["x".repeat(200), "é", " ", "a b", "\t", randomUUID()]);
      return {
        what: `Idempotency-Key ${preview(key)}`,
        url: urlWith(),
        opts: { ...as, body: validBody(), headers: { ...as.headers, "Idempotency-Key": key } },
      };
    });
  }
  while (out.length < CASES) out.push(pick(random, kinds)());
  return out;
}

function preview(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 40)}… (${text.length} chars)` : text;
}

/** What is wrong with a response, or null: a 5xx, an undeclared status, a body outside its schema. */
function problemWith(c: Contract, status: number, headers: Headers, text: string): string | null {
  if (status >= 500) return `${status}: ${text.slice(0, 300)}`;
  if (!declaredStatuses(c).has(status)) return `undeclared status ${status}: ${text.slice(0, 200)}`;
  const response = doc.paths[c.path]?.[c.method.toLowerCase()]?.responses[String(status)];
  const json = response?.content?.["application/json"];
  if (!json) return response?.content || status === 204 ? null : `status ${status} has no declared content`;
  if (!(headers.get("content-type") ?? "").includes("application/json"))
    return `status ${status} is not JSON (${headers.get("content-type")})`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status}: the body is not JSON`;
  }
  const validate = validatorFor(json.schema, `${c.id} ${status}`);
  return validate(body)
    ? null
    : `status ${status}: body outside its schema (${ajv.errorsText(validate.errors)}): ${text.slice(0, 200)}`;
}

// ---- the run -------------------------------------------------------------------------------

const ORDER = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 } as const;
const live = HTTP_CONTRACTS.filter((c) => c.status === "live").sort(
  (a, b) => ORDER[a.method] - ORDER[b.method] || a.id.localeCompare(b.id),
);

let org: TestOrg;
let asKey: CallOptions;
let asUser: CallOptions;
/** The surrogate test's own key, made before the hostile-input test spends this minute's requests. */
let surrogateKey: CallOptions;
let telegram: TelegramFake;
const savedTelegramRoot = env.TELEGRAM_API_ROOT;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // Operations that call a provider reach its loopback fake (a valid bot token is simply unknown there: 400).
  telegram = await startTelegramFake();
  env.TELEGRAM_API_ROOT = telegram.root;
  org = await newOrg();
  surrogateKey = { key: (await newKey(org, { scopes: [...SCOPES] })).secret };
  asKey = { key: org.secret };
  asUser = { headers: { cookie: await sessionCookie(org.userId, "owner@example.test"), origin: "http://localhost" } };
  const message = await sentMessage(org); // one message serves every message-shaped parameter
  Object.assign(ids, {
    messageId: message.id,
    emailId: message.id,
    threadId: message.threadId,
    attachmentId: message.attachmentId,
  });
  for (const name of new Set(live.flatMap((c) => paramNames(c.path)))) {
    const factory = RESOURCE_FACTORIES[name];
    if (factory && !ids[name]) ids[name] = await factory(org);
  }
  ids.provider = "ses";
  ids.orgId = org.orgId;
  ids.userId = org.userId;
  const invited = await call("POST", `/v1/organizations/${org.orgId}/invitations`, {
    ...asUser,
    body: { email: "fuzz-invitee@example.test" },
  });
  ids.invitationId = invited.body?.invitation?.id;
}, 120_000);

afterAll(async () => {
  env.TELEGRAM_API_ROOT = savedTelegramRoot;
  await telegram?.close();
});

test("every live operation survives hostile input: no 5xx, only declared statuses and schemas", async () => {
  const failures: string[] = [];
  let sent = 0;
  for (const c of live) {
    const missing = paramNames(c.path).filter((n) => !ids[n]);
    if (missing.length)
      throw new Error(
        `${c.id}: no resource for path parameter(s) ${missing.join(", ")}; add a factory to tests/resources.ts`,
      );
    const as = c.access === "public" ? {} : c.access === "session" ? asUser : asKey;
    for (const [i, fuzz] of casesFor(c, ids, as).entries()) {
      sent++;
      let problem: string | null;
      try {
        const res = await callRaw(c.method, fuzz.url, fuzz.opts);
        problem = problemWith(c, res.status, res.headers, await res.text());
      } catch (err) {
        problem = (err as Error).message.slice(0, 300); // the harness's undeclared-status check, or a crash
      }
      if (problem) failures.push(`${c.id} case ${i} (${fuzz.what}) → ${problem}`);
    }
  }
  expect(sent).toBeGreaterThan(live.length * (CASES - 1));
  expect(failures).toEqual([]);
}, 300_000);

/**
 * Text at the edge, for every live operation (issue 22): a lone surrogate in a body string is a 400
 * `invalid_request` naming that field; a percent-encoded surrogate in a path segment (which cannot
 * decode) is a 400 naming `path`, and in a query value (which URL parsing turns into U+FFFD) is
 * never a 5xx; a body nested 10^5 deep is a 400. Three requests per operation at most.
 */
test("every live operation refuses lone surrogates and deep JSON with a 400 naming the field", async () => {
  const failures: string[] = [];
  const sent = { surrogate: 0, deep: 0, path: 0 };
  // A key and a session of their own: the hostile-input test above spent most of this minute's requests.
  const ownKey = surrogateKey;
  const ownUser: CallOptions = {
    headers: { cookie: await sessionCookie(org.userId, "owner@example.test"), origin: "http://localhost" },
  };
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
  const expectInvalid = async (c: Contract, what: string, url: string, opts: CallOptions, param?: string) => {
    try {
      const res = await callRaw(c.method, url, opts);
      const text = await res.text();
      const problem = problemWith(c, res.status, res.headers, text);
      if (problem) return failures.push(`${c.id} (${what}) → ${problem}`);
      if (res.status !== 400) return failures.push(`${c.id} (${what}) → ${res.status}, not 400: ${text.slice(0, 200)}`);
      const error = (JSON.parse(text) as { error: { code: string; param: string } }).error;
      if (error.code !== "invalid_request" || (param !== undefined && error.param !== param))
        failures.push(`${c.id} (${what}) → ${error.code} param "${error.param}", not invalid_request "${param}"`);
    } catch (err) {
      failures.push(`${c.id} (${what}) → ${(err as Error).message.slice(0, 300)}`);
    }
  };
  for (const c of live) {
    const as = c.access === "public" ? {} : c.access === "session" ? ownUser : ownKey;
    const random = rng(SEED ^ hash(`surrogate:${c.id}`));
    const url = c.path.replace(/\{(\w+)\}/g, (_, n: string) => ids[n] ?? "missing");
    const op = doc.paths[c.path]?.[c.method.toLowerCase()];
    const bodySchema = op?.requestBody?.content["application/json"]?.schema;
    if (bodySchema) {
      const valid = c.example ?? sample(bodySchema, random);
      if (valid !== null && typeof valid === "object" && !Array.isArray(valid)) {
        // The first string field of a valid body, else a field of its own: the 400 names it either way.
        const field = Object.entries(valid).find(([, v]) => typeof v === "string")?.[0] ?? "fuzzText";
        const raw = JSON.stringify({ ...valid, [field]: "x" }).replace(
          `${JSON.stringify(field)}:"x"`,
          `${JSON.stringify(field)}:"a\\ud800b"`,
        );
        sent.surrogate++;
        await expectInvalid(
          c,
          `body ${field} = "a\\ud800b"`,
          url,
          { ...as, rawBody: raw, headers: { ...as.headers, "content-type": "application/json" } },
          field,
        );
        sent.deep++;
        await expectInvalid(c, "body nested 10^5 deep", url, {
          ...as,
          rawBody: `{${JSON.stringify(field)}:${deep(100_000)}}`,
          headers: { ...as.headers, "content-type": "application/json" },
        });
      }
    }
    const names = paramNames(c.path);
    if (names[0]) {
      const name = names[0];
      const bad = c.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === name ? "%ED%A0%80" : (ids[n] ?? "missing")));
      sent.path++;
      await expectInvalid(c, `path ${name} = %ED%A0%80`, bad, as, "path");
    } else {
      try {
        const res = await callRaw(c.method, `${url}?cursor=%ED%A0%80`, { ...as });
        const problem = res.status >= 500 ? `${res.status}: ${(await res.text()).slice(0, 200)}` : null;
        if (problem) failures.push(`${c.id} (query cursor = %ED%A0%80) → ${problem}`);
      } catch (err) {
        failures.push(`${c.id} (query cursor = %ED%A0%80) → ${(err as Error).message.slice(0, 300)}`);
      }
    }
  }
  expect(failures).toEqual([]);
  const writes = live.filter((c) => c.method !== "GET" && c.method !== "DELETE").length;
  expect(sent.surrogate).toBeGreaterThan(writes * 0.8);
  expect(sent.deep).toBe(sent.surrogate);
  expect(sent.path).toBeGreaterThan(live.length / 2);
}, 300_000);
