import { randomUUID } from "node:crypto";
import { expect, test, vi } from "vitest";
import { z } from "zod";
import { getDb } from "@/db";
import { apiKeys } from "@/db/schema";
import { defineContract } from "@/lib/core/contract";
import { defineOperation } from "@/lib/core/operation";
import { createDispatcher } from "@/lib/http/dispatch";
import { errorFields } from "@/lib/log";

// Issue 10, item 15: a failed query is logged with its statement, never its bound values.

const SECRET = `secret-body-${randomUUID()}`;

/** A query that fails (foreign key: no such organization) with SECRET among its parameters. */
async function failingInsert(): Promise<unknown> {
  const db = await getDb();
  try {
    await db.insert(apiKeys).values({
      orgId: randomUUID(),
      userId: randomUUID(),
      name: SECRET,
      prefix: "svc_test_x",
      secretHash: SECRET,
      scopes: ["admin"],
    });
  } catch (err) {
    return err;
  }
  throw new Error("the insert should have failed");
}

test("a query error carries the statement and the database's reason, not the values", async () => {
  const err = await failingInsert();
  expect(err).toBeInstanceOf(Error);
  const e = err as Error;
  expect(e.message).toMatch(/^Failed query: insert into "api_keys"/);
  for (const text of [
    e.message,
    e.stack ?? "",
    JSON.stringify(e),
    JSON.stringify(e.cause),
    JSON.stringify(errorFields(e)),
  ]) {
    expect(text).not.toContain(SECRET);
  }
  // Still useful: the driver's reason and SQLSTATE.
  expect(errorFields(e)).toMatchObject({ err: expect.stringContaining("insert into"), code: "23503" });
});

test("the dispatcher's 500 log names the failed statement without its parameters", async () => {
  const contract = defineContract({
    id: "testQueryFails",
    method: "GET",
    path: "/v1/test-query",
    access: "public",
    tag: "Test",
    summary: "test",
    response: z.object({}),
  });
  const dispatch = createDispatcher([
    defineOperation(contract, async () => {
      throw (await failingInsert()) as Error;
    }),
  ]);
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const res = await dispatch(new Request("http://localhost/v1/test-query"));
  const lines = logged.mock.calls.map((c) => c.map(String).join(" "));
  logged.mockRestore();
  expect(res.status).toBe(500);
  const line = lines.find((l) => l.includes("unhandled error")) ?? "";
  expect(line).toContain('insert into \\"api_keys\\"');
  expect(line).toContain("23503");
  expect(lines.join("\n")).not.toContain(SECRET);
});
