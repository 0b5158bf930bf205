import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { validateStructured } from "@/lib/inbox-schemas/extract";
import { llmExtract } from "@/lib/inbox-schemas/llm";
import { llmMatcher } from "@/lib/waits/llm";
import type { MatchInput } from "@/lib/waits/matcher";

/** The LLM matcher against a fake OpenAI-compatible server on loopback: what it answers is validated and checked against the message. */
let server: Server;
let baseUrl: string;
let next: { status: number; content: unknown } = { status: 200, content: null };
const seen: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      seen.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
      res.writeHead(next.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: next.content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const message: MatchInput = {
  subject: "Your code",
  text: "Order 77812345 ships 2025-03-14. Your verification code is 482 193.",
  html: null,
};
const matcher = () => llmMatcher({ baseUrl, apiKey: "sk-test", model: "tiny", timeoutMs: 5000 });

test("a structured answer the message contains is used; the request carries model, key and schema", async () => {
  next = { status: 200, content: JSON.stringify({ found: true, kind: "code", value: "482193" }) };
  expect(await matcher().match(message, "the 6-digit code")).toEqual({ kind: "code", value: "482193" });
  const last = seen.at(-1) as { url: string; auth: string; body: { model: string; response_format: { type: string } } };
  expect(last.url).toBe("/v1/chat/completions");
  expect(last.auth).toBe("Bearer sk-test");
  expect(last.body.model).toBe("tiny");
  expect(last.body.response_format.type).toBe("json_schema");
});

test("an invented code, a substring of a longer number and a foreign link are refused", async () => {
  for (const value of ["999999", "778123"]) {
    next = { status: 200, content: JSON.stringify({ found: true, kind: "code", value }) };
    expect(await matcher().match(message, null)).toBeNull();
  }
  next = { status: 200, content: JSON.stringify({ found: true, kind: "link", value: "https://evil.example/verify" }) };
  expect(await matcher().match(message, null)).toBeNull();
});

test("an answer outside the schema or a failing server falls back to the deterministic matcher", async () => {
  next = { status: 200, content: JSON.stringify({ found: true, code: "482193", extra: 1 }) };
  expect(await matcher().match(message, null)).toEqual({ kind: "code", value: "482193" });
  next = { status: 500, content: "oops" };
  expect(await matcher().match(message, null)).toEqual({ kind: "code", value: "482193" });
  next = { status: 200, content: JSON.stringify({ found: false, kind: null, value: null }) };
  expect(await matcher().match(message, null)).toBeNull();
});

test("schema extraction by the LLM: the answer is coerced, nulls dropped, and validated like any extraction", async () => {
  const schema = { orderId: { type: "integer" as const, required: true }, email: { type: "email" as const } };
  const source = { text: "order seven for a@example.com", html: null, files: [] };
  const config = { baseUrl, apiKey: null, model: "tiny", timeoutMs: 5000 };
  next = { status: 200, content: JSON.stringify({ orderId: "7", email: null }) };
  const got = await llmExtract(config, schema, "orders", source);
  expect(got).toEqual({ orderId: 7 });
  expect(validateStructured(schema, got)).toEqual([]);
  next = { status: 200, content: JSON.stringify({ orderId: "seven", email: "nope" }) };
  const bad = await llmExtract(config, schema, null, source);
  expect(
    validateStructured(schema, bad)
      .map((e) => e.field)
      .sort(),
  ).toEqual(["email", "orderId"]);
  next = { status: 503, content: "busy" };
  await expect(llmExtract(config, schema, null, source)).rejects.toThrow();
});
