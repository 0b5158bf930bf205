import { beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import type { Contract } from "@/lib/core/contract";
import { BUNDLES, SCOPES, type Scope } from "@/lib/auth/scopes";
import { openApiDocument } from "@/lib/meta/openapi";
import { HTTP_CONTRACTS as CONTRACTS } from "@/lib/registry";
import { call, type CallOptions, newKey, newOrg, sessionCookie, type TestOrg } from "./harness";
import { paramNames as pathParamNames, RESOURCE_FACTORIES } from "./resources";
import { type JsonSchema, paramOf, propertiesOf, setAt, stringPaths } from "./schema-walk";

/**
 * The generated security suite: for every authenticated operation in the contract registry,
 * without any per-route test code. A new route is covered as soon as its contract is registered;
 * a new kind of path parameter needs one factory in tests/resources.ts (the suite fails until it has one).
 */
// Session operations (console users) have their own generated suite in tests/organizations.test.ts.
const guarded = CONTRACTS.filter((c) => c.status === "live" && c.access !== "public" && c.access !== "session");

const paramNames = (c: Contract) => pathParamNames(c.path);

function urlFor(c: Contract, ids: Record<string, string>): string {
  return c.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? "missing");
}

/** Every scope that does not grant `scope`, directly or through a bundle. */
function scopesWithout(scope: Scope): Scope[] {
  return SCOPES.filter((s) => s !== scope && !(BUNDLES[s] ?? []).includes(scope));
}

test("the registry has guarded operations to check", () => {
  expect(guarded.length).toBeGreaterThan(5);
});

describe.each(guarded.map((c) => [`${c.method} ${c.path}`, c] as const))("%s", (_name, c) => {
  let owner: TestOrg;
  let stranger: TestOrg;
  let url: string;
  const body = c.body ? c.example : undefined;

  beforeAll(async () => {
    owner = await newOrg();
    stranger = await newOrg();
    const ids: Record<string, string> = {};
    for (const name of paramNames(c)) {
      const factory = RESOURCE_FACTORIES[name];
      if (!factory)
        throw new Error(`No resource factory for path parameter "${name}" (${c.id}); add one to tests/resources.ts.`);
      ids[name] = await factory(owner);
    }
    url = urlFor(c, ids);
  });

  test("documents an example body when it takes one", () => {
    if (c.body) expect(c.example).toBeDefined();
  });

  test("no key → 401", async () => {
    const res = await call(c.method, url, { body });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: "authentication_error", code: "missing_api_key" });
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("malformed key → 401", async () => {
    for (const key of ["nope", "svc_live_short", `svc_live_${"x".repeat(40)}`]) {
      const res = await call(c.method, url, { key, body });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_api_key");
    }
  });

  test("revoked key → 401", async () => {
    const k = await newKey(owner, { scopes: ["admin"] });
    const revoke = await call("POST", `/v1/api-keys/${k.id}/revoke`, { key: owner.secret });
    expect(revoke.status).toBe(200);
    const res = await call(c.method, url, { key: k.secret, body });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_api_key");
  });

  test.skipIf(c.access === "key")("key without the scope → 403 scope_missing", async () => {
    const k = await newKey(owner, { scopes: scopesWithout(c.access as Scope) });
    const res = await call(c.method, url, { key: k.secret, body });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("scope_missing");
    expect(res.body.error.message).toContain(c.access);
  });

  test.skipIf(paramNames(c).length === 0)("another organization's id → 404", async () => {
    const res = await call(c.method, url, { key: stranger.secret, body });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("resource_not_found");
  });

  test("allowlist excluding the caller → 403", async () => {
    const k = await newKey(owner, { scopes: ["admin"], allowedIps: ["203.0.113.0/24", "2001:db8::/32"] });
    const res = await call(c.method, url, { key: k.secret, body, ip: "127.0.0.1" });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("not_permitted");
  });
});

/**
 * Hostile input for every live HTTP operation (public, key and session alike), refused by the
 * kernel before any handler runs — so any well-formed id will do in the path. A path that does
 * not percent-decode is 400 in the envelope; a NUL byte in a path parameter, a query parameter
 * or any string of the body (every string position of the request schema: names, subjects,
 * header values, filenames, nested arrays and maps) is 400 naming that field. (PostgreSQL
 * refuses NUL in text, so without the check these were 500s on one database and not the other.)
 */
const SAMPLE_ID = "01930000-0000-7000-8000-000000000000";
const OPENAPI = openApiDocument() as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
};

function sampleUrl(c: Contract, replace: Record<string, string> = {}): string {
  return c.path.replace(/\{(\w+)\}/g, (_, name: string) => replace[name] ?? (name === "provider" ? "ses" : SAMPLE_ID));
}

/** One request per place a NUL byte can hide, with the `param` the 400 must name. */
function nulProbes(c: Contract): { url: string; body: unknown; param: string }[] {
  const probes: { url: string; body: unknown; param: string }[] = [];
  const body = c.body ? (c.example ?? {}) : undefined;
  for (const name of paramNames(c)) probes.push({ url: sampleUrl(c, { [name]: "a%00b" }), body, param: name });
  const queryNames = Object.keys(
    c.query ? propertiesOf(z.toJSONSchema(c.query, { io: "input", unrepresentable: "any" })) : {},
  );
  for (const name of queryNames.length ? queryNames : ["probe"])
    probes.push({ url: `${sampleUrl(c)}?${name}=a%00b`, body, param: name });
  const schema = OPENAPI.paths[c.path]?.[c.method.toLowerCase()]?.requestBody?.content["application/json"]?.schema;
  if (schema)
    for (const path of stringPaths(schema))
      probes.push({ url: sampleUrl(c), body: setAt(body, path, "a\u0000b"), param: paramOf(path) });
  return probes;
}

describe.each(CONTRACTS.filter((c) => c.status === "live").map((c) => [`${c.method} ${c.path}`, c] as const))(
  "hostile input: %s",
  (_name, c) => {
    let as: CallOptions = {};

    beforeAll(async () => {
      if (c.access === "public") return;
      const org = await newOrg();
      as =
        c.access === "session"
          ? { headers: { cookie: await sessionCookie(org.userId, "owner@example.test"), origin: "http://localhost" } }
          : { key: org.secret };
    });

    test("a malformed percent-escape in the path → 400 in the envelope", async () => {
      const names = paramNames(c);
      const urls = names.length
        ? ["%E0%A4%A", "%"].map((bad) => sampleUrl(c, { [names[0] ?? ""]: bad }))
        : [`${c.path}%E0%A4%A`, `${c.path}/%`];
      for (const url of urls) {
        const res = await call(c.method, url, { ...as, body: c.body ? c.example : undefined });
        expect(res.status, url).toBe(400);
        expect(res.body.error, url).toMatchObject({
          type: "invalid_request_error",
          code: "invalid_request",
          param: "path",
        });
        expect(res.headers.get("x-request-id")).toMatch(/^req_/);
      }
    });

    test("a NUL byte in a path parameter, a query parameter or any string of the body → 400 naming it", async () => {
      const probes = nulProbes(c);
      expect(probes.length).toBeGreaterThan(0);
      for (const probe of probes) {
        const res = await call(c.method, probe.url, { ...as, body: probe.body });
        expect(res.status, `${probe.param}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.error, probe.param).toMatchObject({
          code: "invalid_request",
          param: probe.param,
          message: expect.stringContaining("NUL"),
        });
      }
    });
  },
);
