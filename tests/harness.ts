import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { getDb } from "@/db";
import type { Method } from "@/lib/core/contract";
import { declaredStatuses } from "@/lib/core/openapi";
import { compileRoutes, type RouteTable } from "@/lib/http/routes";
import { CLIENT_IP_HEADER, SERVER_TOKEN_HEADER, serverToken } from "@/lib/http/client-ip";
import { bootstrap } from "@/lib/organizations/bootstrap";

/**
 * Integration harness: sends requests through the real route modules under app/ in-process (the
 * same handlers Next.js serves: every /v1 request goes through `app/v1/[...path]/route.ts`, the
 * HTTP adapter's dispatcher), with the client address stamped as the server would stamp it.
 */
export type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>;
const APP_DIR = path.resolve(__dirname, "..", "app");

export interface RouteModule {
  file: string;
  /** `/v1/api-keys/{keyId}`; catch-all segments become `{...path}`. */
  template: string;
  handlers: Record<string, RouteHandler>;
}

function routeFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /^route\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

export function templateOf(file: string): string {
  const rel = path
    .relative(APP_DIR, path.dirname(file))
    .split(path.sep)
    .filter((s) => !/^\(.*\)$/.test(s));
  return `/${rel.map((s) => s.replace(/^\[\.\.\.(.+)\]$/, "{...$1}").replace(/^\[(.+)\]$/, "{$1}")).join("/")}`;
}

let modules: Promise<RouteModule[]> | undefined;

export function loadRoutes(): Promise<RouteModule[]> {
  modules ??= Promise.all(
    routeFiles(APP_DIR).map(async (file) => ({
      file,
      template: templateOf(file),
      handlers: (await import(file)) as Record<string, RouteHandler>,
    })),
  ).then((list) => list.sort((a, b) => specificity(b.template) - specificity(a.template)));
  return modules;
}

/** Static segments outrank dynamic ones, which outrank catch-alls (as in Next's router). */
function specificity(template: string): number {
  return (
    template.split("/").reduce((n, s) => n * 4 + (s.startsWith("{...") ? 0 : s.startsWith("{") ? 1 : 2), 0) * 100 +
    template.split("/").length
  );
}

/** Like Next's router: a segment that does not decode is passed on as it came (the app answers it). */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function match(template: string, pathname: string): Record<string, string | string[]> | null {
  const t = template.split("/").slice(1);
  const p = pathname.split("/").slice(1);
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i] ?? "";
    if (seg.startsWith("{...")) {
      if (p.length <= i) return null;
      params[seg.slice(4, -1)] = p.slice(i).map(decodeSegment);
      return params;
    }
    const actual = p[i];
    if (actual === undefined) return null;
    if (seg.startsWith("{")) params[seg.slice(1, -1)] = decodeSegment(actual);
    else if (seg !== actual) return null;
  }
  return t.length === p.length ? params : null;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Source address as the server would stamp it (default 127.0.0.1). */
  ip?: string | null;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** The raw Response of a request through the app's route modules. */
export async function callRaw(method: string, url: string, opts: CallOptions = {}): Promise<Response> {
  const full = new URL(url, "http://localhost");
  const routes = await loadRoutes();
  let found: { mod: RouteModule; params: Record<string, string | string[]> } | undefined;
  for (const mod of routes) {
    const params = match(mod.template, full.pathname);
    if (params) {
      found = { mod, params };
      break;
    }
  }
  if (!found) throw new Error(`no route for ${full.pathname}`);
  const handler = found.mod.handlers[method];
  if (!handler) throw new Error(`${found.mod.file} exports no ${method}`);
  const headers = new Headers(opts.headers);
  if (opts.key) headers.set("authorization", `Bearer ${opts.key}`);
  const ip = opts.ip === undefined ? "127.0.0.1" : opts.ip;
  if (ip) {
    headers.set(CLIENT_IP_HEADER, ip);
    headers.set(SERVER_TOKEN_HEADER, serverToken());
  }
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers.set("content-type", "application/json");
  }
  const response = await handler(new Request(full, { method, headers, body }), {
    params: Promise.resolve(found.params),
  });
  await expectDeclaredStatus(method, full.pathname, response);
  return response;
}

let routeTable: Promise<RouteTable> | undefined;

/**
 * The OpenAPI contract, checked on every request of every test: a `/v1` operation may only answer
 * with a status its document declares (`declaredStatuses`: the kernel's errors for its kind and
 * the contract's `errors`). An undeclared status fails the test that saw it.
 */
export async function expectDeclaredStatus(method: string, pathname: string, response: Response): Promise<void> {
  if (!pathname.startsWith("/v1/")) return;
  routeTable ??= import("@/lib/registry").then((r) => compileRoutes(r.HTTP_OPERATIONS));
  let segments: string[];
  try {
    segments = pathname
      .split("/")
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return; // a malformed path belongs to no operation (the dispatcher answers 400)
  }
  const op = (await routeTable).match(segments)?.entry.byMethod.get(method.toUpperCase() as Method);
  if (!op) return;
  const declared = declaredStatuses(op.contract);
  if (!declared.has(response.status)) {
    const text = await response.clone().text();
    throw new Error(
      `${op.id} answered ${response.status}, which its OpenAPI entry does not declare (${[...declared].join(", ")}): ${text.slice(0, 300)}`,
    );
  }
}

export async function call<T = any>(method: string, url: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  const response = await callRaw(method, url, opts);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as T };
}

export interface TestOrg {
  orgId: string;
  userId: string;
  /** An admin key's secret. */
  secret: string;
  apiKeyId: string;
}

/** A fresh user and organization with an admin key: every test works in its own tenant. */
export async function newOrg(): Promise<TestOrg> {
  const result = await bootstrap(await getDb(), {
    email: `t-${randomUUID()}@example.test`,
    orgName: `Test ${randomUUID().slice(0, 8)}`,
  });
  return { orgId: result.organization.id, userId: result.user.id, secret: result.secret, apiKeyId: result.apiKey.id };
}

/** Creates a key in `org` through the API and returns its secret and id. */
export async function newKey(org: TestOrg, body: Record<string, unknown>): Promise<{ secret: string; id: string }> {
  const res = await call("POST", "/v1/api-keys", { key: org.secret, body: { name: "k", ...body } });
  if (res.status !== 200) throw new Error(`newKey: ${res.status} ${JSON.stringify(res.body)}`);
  return { secret: res.body.secret, id: res.body.apiKey.id };
}

/** Creates an inbox on the shared domain (unique address) through the API. */
export async function newInbox(org: TestOrg, local?: string): Promise<{ id: string; address: string }> {
  const { env } = await import("@/lib/env");
  const address = `${local ?? "inbox"}-${randomUUID().slice(0, 8)}@${env.SHARED_DOMAIN}`;
  const res = await call("POST", "/v1/inboxes", { key: org.secret, body: { address } });
  if (res.status !== 200) throw new Error(`newInbox: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.inbox.id, address: res.body.inbox.address };
}

/** A console session cookie for `userId`, encrypted exactly as Auth.js does (the cookie name is the salt). */
export async function sessionCookie(userId: string, email: string): Promise<string> {
  const [{ encode }, { authSecret }] = await Promise.all([import("next-auth/jwt"), import("@/lib/console/secret")]);
  const name = "authjs.session-token";
  const token = await encode({
    token: { sub: userId, email },
    secret: await authSecret(await getDb()),
    salt: name,
    maxAge: 3600,
  });
  return `${name}=${token}`;
}
