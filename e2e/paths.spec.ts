import http from "node:http";
import { expect, test } from "@playwright/test";

/**
 * Issue 10 #8 against the built server: a path that does not percent-decode is refused before
 * Next.js routes it (its router would answer a bare text 500), with 400 in the API's error
 * envelope, on the API and on every other path alike. Sent with node:http so the request target
 * reaches the server byte for byte.
 */
function get(
  baseURL: string,
  target: string,
): Promise<{ status: number; type: string; requestId: string; body: string }> {
  const base = new URL(baseURL);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, path: target, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers["content-type"] ?? ""),
          requestId: String(res.headers["x-request-id"] ?? ""),
          body,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

for (const target of [
  "/v1/inboxes/%E0%A4%A",
  "/v1/%E0%A4%A",
  "/v1/inboxes/%",
  "/files/attachments/%E0%A4%A",
  "/inboxes/%E0%A4%A?x=1",
]) {
  test(`malformed percent-escape ${target} → 400 in the envelope`, async ({ baseURL }) => {
    const res = await get(baseURL ?? "", target);
    expect(res.status).toBe(400);
    expect(res.type).toContain("application/json");
    expect(res.requestId).toMatch(/^req_/);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        type: "invalid_request_error",
        code: "invalid_request",
        message: expect.stringContaining("malformed percent-escape"),
        param: "path",
      },
    });
  });
}

test("a well-formed escape still reaches the API (401 without a key, not 400)", async ({ baseURL }) => {
  const res = await get(baseURL ?? "", "/v1/inboxes/a%2Fb%20c");
  expect(res.status).toBe(401);
  expect(JSON.parse(res.body).error.code).toBe("missing_api_key");
});
