import { expect, test } from "vitest";
import { compileRoutes } from "@/lib/http/routes";
import { CONTRACTS, HTTP_OPERATIONS, OPERATIONS } from "@/lib/registry";
import { call, loadRoutes } from "./harness";

const sampleUrl = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === "provider" ? "ses" : "01930000-0000-7000-8000-000000000000",
  );

test("every /v1 route file is the dispatcher: the catch-all, or a static path handing every method to it", async () => {
  const v1 = (await loadRoutes()).filter((r) => r.template.startsWith("/v1"));
  const catchAll = v1.find((r) => r.template === "/v1/{...path}");
  for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"])
    expect(catchAll?.handlers[m], `the catch-all lacks ${m}`).toBeTypeOf("function");
  // Static routes exist only for speed (Next skips its dynamic-route work for them): the same
  // handlers, for a path of a live operation.
  const live = new Set(HTTP_OPERATIONS.filter((o) => o.contract.status === "live").map((o) => o.contract.path));
  for (const route of v1.filter((r) => r !== catchAll)) {
    expect(route.template, route.file).toMatch(/^\/v1(\/[a-z0-9-]+)+$/);
    expect(live.has(route.template), `${route.template} is no live operation's path`).toBe(true);
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"])
      expect(route.handlers[m], `${route.file}: ${m} is not the catch-all's`).toBe(catchAll?.handlers[m]);
  }
});

test("every live HTTP operation is reachable through the route table, on its own method and path", () => {
  const routes = compileRoutes(HTTP_OPERATIONS);
  for (const op of HTTP_OPERATIONS.filter((o) => o.contract.status === "live")) {
    const found = routes.match(sampleUrl(op.contract.path).split("/").slice(1));
    expect(found, `${op.id}: ${op.contract.path} has no route`).not.toBeNull();
    expect(
      found?.entry.byMethod.get(op.contract.method),
      `${op.id} is not what ${op.contract.method} ${op.contract.path} serves`,
    ).toBe(op);
  }
});

test("every live HTTP operation answers through the app's route module (not 404 'No operation', not 405)", async () => {
  for (const op of HTTP_OPERATIONS.filter((o) => o.contract.status === "live")) {
    const res = await call(op.contract.method, sampleUrl(op.contract.path));
    expect(res.status, `${op.id}`).not.toBe(405);
    expect(String(res.body?.error?.message ?? ""), op.id).not.toMatch(/^No operation/);
    expect(res.headers.get("x-request-id"), op.id).toMatch(/^req_/);
  }
}, 120_000);

test("console-only operations are not on the HTTP API", async () => {
  const hidden = OPERATIONS.filter((op) => !op.surfaces.http);
  expect(hidden.map((op) => op.id)).toEqual(
    expect.arrayContaining(["deleteOrganization", "setPassword", "replyInThread"]),
  );
  const routes = compileRoutes(HTTP_OPERATIONS);
  for (const op of hidden)
    expect(
      routes.match(sampleUrl(op.contract.path).split("/").slice(1))?.entry.byMethod.get(op.contract.method),
    ).toBeUndefined();
});

test("operation ids are unique, and so are method+path pairs of HTTP operations", () => {
  const ids = CONTRACTS.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  const keys = HTTP_OPERATIONS.map((op) => `${op.contract.method} ${op.contract.path}`);
  expect(new Set(keys).size).toBe(keys.length);
});

test("the OpenAPI document's operations are exactly the registry's HTTP operations", async () => {
  const doc = (await call("GET", "/v1/openapi.json")).body;
  const documented = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
    ([path, item]) => Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
  );
  const registered = HTTP_OPERATIONS.map((op) => `${op.contract.method} ${op.contract.path} ${op.id}`);
  expect(documented.sort()).toEqual(registered.sort());
});
