import { Validator } from "@seriousme/openapi-schema-validator";
import { expect, test } from "vitest";
import { HTTP_CONTRACTS as CONTRACTS } from "@/lib/registry";
import { call } from "./harness";

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

test("the validator rejects a broken document (the check above can fail)", async () => {
  const doc = structuredClone((await call("GET", "/v1/openapi.json")).body);
  doc.paths["/v1/api-keys/{keyId}"].get.parameters[0].in = "body";
  const result = await new Validator().validate(doc);
  expect(result.valid).toBe(false);
});
