import { expect, test } from "vitest";
import { CONTRACTS } from "@/lib/contracts";
import { loadRoutes } from "./harness";

/** Every route handler serves a registered contract on its own path, and every live contract has a handler. */
test("route handlers and contracts match one to one", async () => {
  const routes = (await loadRoutes()).filter((r) => r.template.startsWith("/v1"));
  const served = new Map<string, string>();
  for (const r of routes) {
    for (const [method, handler] of Object.entries(r.handlers)) {
      expect(typeof handler, `${r.file} ${method}`).toBe("function");
      const ops = handler.operations as readonly { contract: { id: string; path: string; method: string } }[] | undefined;
      expect(ops, `${r.file} exports ${method} without the kernel's route()`).toBeDefined();
      for (const op of ops ?? []) {
        expect(CONTRACTS, `${op.contract.id} is not in the registry`).toContain(op.contract);
        expect(op.contract.path, `${r.file} serves ${op.contract.id} on the wrong path`).toBe(r.template);
        expect(op.contract.method).toBe(method);
        served.set(op.contract.id, r.file);
      }
    }
  }
  const missing = CONTRACTS.filter((c) => c.status === "live" && !served.has(c.id)).map((c) => `${c.method} ${c.path}`);
  expect(missing, "live contracts without a route handler").toEqual([]);
});

test("operation ids and method+path pairs are unique", () => {
  const ids = CONTRACTS.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  const keys = CONTRACTS.map((c) => `${c.method} ${c.path}`);
  expect(new Set(keys).size).toBe(keys.length);
});

test("every /v1 route file is a kernel route (or the catch-all)", async () => {
  const routes = await loadRoutes();
  const v1 = routes.filter((r) => r.template.startsWith("/v1"));
  expect(v1.length).toBeGreaterThan(5);
  for (const r of v1) {
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) expect(r.handlers[m], `${r.file} lacks ${m}`).toBeTypeOf("function");
  }
});
