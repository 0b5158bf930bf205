import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, expect, test } from "vitest";
import { HTTP_CONTRACTS as CONTRACTS } from "@/lib/registry";
import { declaredStatuses } from "@/lib/core/openapi";
import { call, expectDeclaredStatus, loadRoutes } from "./harness";

// Importing every route module (Auth.js, the workflow endpoints, …) is the slow part of the first request.
beforeAll(() => loadRoutes().then(() => undefined));

test("GET /v1/openapi.json is a valid OpenAPI 3.1 document generated from the contracts", async () => {
  const res = await call("GET", "/v1/openapi.json");
  expect(res.status).toBe(200);
  const doc = res.body;
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.info.version).toBe("1.0.0");

  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe("3.1");

  for (const c of CONTRACTS) {
    const op = doc.paths[c.path]?.[c.method.toLowerCase()];
    expect(op, `${c.id} missing from the document`).toBeDefined();
    expect(op.operationId).toBe(c.id);
    expect(["live", "planned"]).toContain(op["x-svc-status"]);
  }
});

test("request schemas forbid unknown fields and path parameters are documented", async () => {
  const doc = (await call("GET", "/v1/openapi.json")).body;
  const create = doc.paths["/v1/api-keys"].post;
  expect(create.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
  const get = doc.paths["/v1/api-keys/{keyId}"].get;
  expect(get.parameters).toContainEqual(expect.objectContaining({ name: "keyId", in: "path", required: true }));
});

test("an operation with rawReplies lists them beside its JSON answer (Twilio's voice webhook: TwiML)", async () => {
  const doc = (await call("GET", "/v1/openapi.json")).body;
  const content = doc.paths["/v1/providers/{provider}/events"].post.responses["200"].content;
  expect(Object.keys(content).sort()).toEqual(["application/json", "text/xml"]);
  expect(content["application/json"].schema.properties).toHaveProperty("received");
  expect(content["text/xml"].schema).toEqual({ type: "string" });
});

test("the validator rejects a broken document (the check above can fail)", async () => {
  const doc = structuredClone((await call("GET", "/v1/openapi.json")).body);
  doc.paths["/v1/api-keys/{keyId}"].get.parameters[0].in = "body";
  const result = await new Validator().validate(doc);
  expect(result.valid).toBe(false);
});

test("every operation declares each status it can answer: the kernel's for its kind and its contract's errors", async () => {
  const doc = (await call("GET", "/v1/openapi.json")).body;
  for (const c of CONTRACTS) {
    const responses = doc.paths[c.path][c.method.toLowerCase()].responses as Record<
      string,
      { "x-svc-error-codes"?: string[] }
    >;
    const statuses = Object.keys(responses).map(Number);
    expect(statuses.sort(), c.id).toEqual([...declaredStatuses(c)].sort());
    const codes = Object.values(responses).flatMap((r) => r["x-svc-error-codes"] ?? []);
    // Every operation: unknown query parameters, a malformed path or a NUL byte are 400s; a bug is a 500.
    expect(codes, c.id).toEqual(expect.arrayContaining(["invalid_request", "internal_error", ...(c.errors ?? [])]));
    if (c.params) expect(codes, c.id).toContain("resource_not_found");
    if (c.access !== "public") expect(codes, c.id).toEqual(expect.arrayContaining(["rate_limited", "not_permitted"]));
    if (c.idempotent && c.access !== "public")
      expect(codes, c.id).toEqual(expect.arrayContaining(["idempotency_key_in_use", "idempotency_key_mismatch"]));
  }
  // The two the issue found undeclared: the in-use Idempotency-Key and the replay's unknown webhook.
  expect(doc.paths["/v1/messages"].post.responses["409"]["x-svc-error-codes"]).toContain("idempotency_key_in_use");
  expect(doc.paths["/v1/events/replay"].post.responses["404"]["x-svc-error-codes"]).toContain("resource_not_found");
});

test("a response with an undeclared status fails the test that saw it (every harness call checks)", async () => {
  await expect(expectDeclaredStatus("GET", "/v1/whoami", new Response("{}", { status: 404 }))).rejects.toThrow(
    /getWhoami answered 404, which its OpenAPI entry does not declare/,
  );
  await expect(expectDeclaredStatus("GET", "/v1/whoami", new Response("{}", { status: 401 }))).resolves.toBeUndefined();
});
