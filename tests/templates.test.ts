import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { call, newOrg, type TestOrg } from "./harness";
import { newTemplate } from "./resources";

/** Templates through /v1: immutable versions, the current-version pointer, archive, preview with variables. */
const source = (greeting: string) =>
  `import { Html, Text } from "@react-email/components";\nexport default function W({ name, plan }) { return <Html><Text>${greeting} {name}</Text><Text>Plan: {plan}</Text></Html>; }`;
const variables = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 10, default: "there" },
    plan: { type: "string", enum: ["free", "pro"], default: "free" },
  },
};

let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});

const post = (path: string, body: unknown) => call("POST", path, { key: org.secret, body });

describe("create, read, versions", () => {
  test("creating publishes version 1 as current; the template reads back by id and by slug", async () => {
    const res = await post("/v1/templates", {
      name: "Order Shipped!",
      source: source("Hello"),
      subject: "Shipped, {{ name }}",
      variables,
      notes: "first",
    });
    expect(res.status).toBe(200);
    expect(res.body.template).toMatchObject({
      object: "template",
      name: "Order Shipped!",
      slug: "order-shipped",
      status: "active",
      currentVersion: 1,
      latestVersion: 1,
      archivedAt: null,
    });
    expect(res.body.version).toMatchObject({
      object: "template_version",
      version: 1,
      subject: "Shipped, {{ name }}",
      notes: "first",
      variables,
    });
    const byId = await call("GET", `/v1/templates/${res.body.template.id}`, { key: org.secret });
    const bySlug = await call("GET", "/v1/templates/order-shipped", { key: org.secret });
    expect(byId.body).toEqual(bySlug.body);
    expect(bySlug.body.version.source).toBe(source("Hello"));

    // A derived slug that is taken gets a suffix; an explicit one that is taken is a 409.
    const again = await post("/v1/templates", { name: "Order shipped", source: source("Hi") });
    expect(again.status).toBe(200);
    expect(again.body.template.slug).toMatch(/^order-shipped-[a-z0-9]+$/);
    const taken = await post("/v1/templates", { name: "X", slug: "order-shipped", source: source("Hi") });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: "conflict", param: "slug" });
  });

  test("publishing appends versions that never change; makeCurrent false leaves the pointer; the list is newest first without sources", async () => {
    const t = await newTemplate(org);
    const v2 = await post(`/v1/templates/${t.slug}/versions`, {
      source: source("Welcome"),
      subject: "Welcome {{ name }}",
      variables,
      notes: "v2",
    });
    expect(v2.status).toBe(200);
    expect(v2.body.template).toMatchObject({ currentVersion: 2, latestVersion: 2 });
    const v3 = await post(`/v1/templates/${t.id}/versions`, { source: source("Staged"), makeCurrent: false });
    expect(v3.body.template).toMatchObject({ currentVersion: 2, latestVersion: 3 });
    expect(v3.body.version).toMatchObject({ version: 3, subject: null, variables: null, notes: null });

    const list = await call("GET", `/v1/templates/${t.id}/versions`, { key: org.secret });
    expect(list.status).toBe(200);
    expect(list.body.templateId).toBe(t.id);
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(Object.keys(list.body.versions[0]).sort()).toEqual([
      "createdAt",
      "notes",
      "subject",
      "variables",
      "version",
    ]);

    const one = await call("GET", `/v1/templates/${t.slug}/versions/1`, { key: org.secret });
    expect(one.body.version).toMatchObject({ version: 1, subject: "Hi {{ name }}" });
    expect((await call("GET", `/v1/templates/${t.slug}/versions/9`, { key: org.secret })).body.error).toMatchObject({
      code: "resource_not_found",
      param: "version",
    });

    // The database itself refuses to change a stored version.
    const db = await getDb();
    const refused = await db
      .execute(sql`update template_versions set source = 'x' where template_id = ${t.id} and version = 1`)
      .then(
        () => null,
        (err: Error & { cause?: Error }) => `${err.message} ${err.cause?.message ?? ""}`,
      );
    expect(refused).toMatch(/immutable/);
  });

  test("concurrent publishes get distinct, consecutive version numbers", async () => {
    const t = await newTemplate(org);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(`/v1/templates/${t.id}/versions`, { source: source(`Hello ${i}`) })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.map((r) => r.body.version.version).sort((a: number, b: number) => a - b)).toEqual([
      2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const got = await call("GET", `/v1/templates/${t.id}`, { key: org.secret });
    expect(got.body.template).toMatchObject({ latestVersion: 9, currentVersion: expect.any(Number) });
  });

  test("the list pages newest first and filters by status", async () => {
    const mine = await newOrg();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await newTemplate(mine));
    const page1 = await call("GET", "/v1/templates?limit=2", { key: mine.secret });
    expect(page1.body.templates.map((t: { id: string }) => t.id)).toEqual([made[2]?.id, made[1]?.id]);
    const page2 = await call("GET", `/v1/templates?limit=2&cursor=${page1.body.pagination.nextCursor}`, {
      key: mine.secret,
    });
    expect(page2.body.templates.map((t: { id: string }) => t.id)).toEqual([made[0]?.id]);
    expect(page2.body.pagination).toEqual({ nextCursor: null, hasMore: false });
    await call("DELETE", `/v1/templates/${made[0]?.id}`, { key: mine.secret });
    const archived = await call("GET", "/v1/templates?status=archived", { key: mine.secret });
    expect(archived.body.templates.map((t: { id: string }) => t.id)).toEqual([made[0]?.id]);
  });
});

describe("pointer, archive, preview", () => {
  test("roll back and forward; a version that does not exist is refused; archived templates need an explicit version", async () => {
    const t = await newTemplate(org, { source: source("One"), variables });
    await post(`/v1/templates/${t.id}/versions`, { source: source("Two"), variables });
    const back = await call("PATCH", `/v1/templates/${t.id}`, { key: org.secret, body: { currentVersion: 1 } });
    expect(back.body.template.currentVersion).toBe(1);
    expect((await post(`/v1/templates/${t.id}/render`, {})).body.html).toContain("One");
    const missing = await call("PATCH", `/v1/templates/${t.id}`, { key: org.secret, body: { currentVersion: 3 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe("currentVersion");

    const archived = await call("DELETE", `/v1/templates/${t.slug}`, { key: org.secret });
    expect(archived.body.template).toMatchObject({ status: "archived", archivedAt: expect.any(String) });
    const implicit = await post(`/v1/templates/${t.id}/render`, {});
    expect(implicit.status).toBe(400);
    expect(implicit.body.error.param).toBe("version");
    expect((await post(`/v1/templates/${t.id}/render`, { version: 2 })).body.html).toContain("Two");
    const publish = await post(`/v1/templates/${t.id}/versions`, { source: source("Three") });
    expect(publish.status).toBe(409);
    const restored = await call("PATCH", `/v1/templates/${t.id}`, { key: org.secret, body: { archived: false } });
    expect(restored.body.template).toMatchObject({ status: "active", archivedAt: null });
  });

  test("preview validates variables against the version's schema, fills defaults and the subject", async () => {
    const t = await newTemplate(org, { source: source("Hello"), subject: "Hi {{ name }} ({{ plan }})", variables });
    const ok = await post(`/v1/templates/${t.id}/render`, { variables: { name: "Ada" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ templateId: t.id, version: 1, subject: "Hi Ada (free)" });
    expect(ok.body.html).toMatch(/Hello <!-- -->Ada|Hello Ada/);
    expect(ok.body.text).toContain("Plan: free");
    const own = await post(`/v1/templates/${t.id}/render`, { variables: { name: "Ada" }, subject: "Custom" });
    expect(own.body.subject).toBe("Custom");

    for (const [vars, param] of [
      [{ name: "A name far too long" }, "variables.name"],
      [{ plan: "gold" }, "variables.plan"],
      [{ name: 7 }, "variables.name"],
    ] as const) {
      const bad = await post(`/v1/templates/${t.id}/render`, { variables: vars });
      expect(bad.status, JSON.stringify(vars)).toBe(400);
      expect(bad.body.error).toMatchObject({ code: "invalid_request", param });
    }
  });

  test("a draft renders without being stored, checked as publishing checks it; its errors name the draft's field or the variable", async () => {
    const t = await newTemplate(org, { source: source("Stored"), variables });
    const draft = { source: source("Draft"), subject: "Draft for {{ name }}", variables };
    const ok = await post(`/v1/templates/${t.id}/render`, { draft, variables: { name: "Ada" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ templateId: t.id, version: 2, subject: "Draft for Ada" });
    expect(ok.body.html).toMatch(/Draft <!-- -->Ada|Draft Ada/);
    // Nothing was published: the template still has one version, and the stored one still renders.
    expect((await call("GET", `/v1/templates/${t.id}/versions`, { key: org.secret })).body.versions).toHaveLength(1);
    expect((await post(`/v1/templates/${t.id}/render`, {})).body.html).toContain("Stored");

    for (const [body, param] of [
      [
        {
          draft: { source: 'import fs from "node:fs";\nexport default () => fs.readFileSync("/etc/passwd", "utf8");' },
        },
        "draft.source",
      ],
      [{ draft: { source: "export default () => <Html" } }, "draft.source"],
      [{ draft: { ...draft, subject: "Hi {{ name" } }, "draft.subject"],
      [
        { draft: { ...draft, variables: { type: "object", properties: { n: { type: "date" } } } } },
        /^draft\.variables\.properties\.n/,
      ],
      [{ draft, variables: { plan: "gold" } }, "variables.plan"],
      [{ draft, version: 1 }, "version"],
    ] as const) {
      const bad = await post(`/v1/templates/${t.id}/render`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.code).toBe("invalid_request");
      if (typeof param === "string") expect(bad.body.error.param).toBe(param);
      else expect(bad.body.error.param).toMatch(param);
    }
    const throws = await post(`/v1/templates/${t.id}/render`, {
      draft: { source: 'export default function T() { throw new Error("boom"); }' },
    });
    expect(throws.status).toBe(400);
    expect(throws.body.error.param).toBe("draft.source");
  });

  test("sources and schemas are checked at publish; a source that hangs fails its render with a 400 and the server stays healthy", async () => {
    const fsImport = await post("/v1/templates", {
      name: "bad",
      source: 'import fs from "node:fs";\nexport default () => fs.readFileSync("/etc/passwd", "utf8");',
    });
    expect(fsImport.status).toBe(400);
    expect(fsImport.body.error).toMatchObject({ code: "invalid_request", param: "source" });
    expect(fsImport.body.error.message).toMatch(/node:fs/);
    const syntax = await post("/v1/templates", { name: "bad", source: "export default () => <Html" });
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.param).toBe("source");
    const schema = await post("/v1/templates", {
      name: "bad",
      source: source("x"),
      variables: { type: "object", properties: { n: { type: "date" } } },
    });
    expect(schema.status).toBe(400);
    expect(schema.body.error.param).toMatch(/^variables\.properties\.n/);
    const subject = await post("/v1/templates", { name: "bad", source: source("x"), subject: "Hi {{ name" });
    expect(subject.status).toBe(400);
    expect(subject.body.error.param).toBe("subject");

    const loop = await newTemplate(org, {
      source: "export default function L() { for (;;) {} }",
      variables: null,
      subject: undefined,
    });
    const hang = await post(`/v1/templates/${loop.id}/render`, {});
    expect(hang.status).toBe(400);
    expect(hang.body.error.message).toMatch(/longer than/i);
    const t = await newTemplate(org);
    expect((await post(`/v1/templates/${t.id}/render`, { variables: { name: "after" } })).status).toBe(200);
  });

  test("another organization's templates are not found by id or by slug", async () => {
    const t = await newTemplate(org);
    const other = await newOrg();
    for (const ref of [t.id, t.slug]) {
      const res = await call("GET", `/v1/templates/${ref}`, { key: other.secret });
      expect(res.status).toBe(404);
      expect(res.body.error.param).toBe("idOrSlug");
    }
  });
});
