import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { closeRenderer, createRenderer } from "@/lib/templates/render";
import type { SandboxPool } from "@/lib/templates/render/pool";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";

/**
 * Issue 22 through /v1: the sandbox boundary (finding 1), the renderer's 429 (finding 3) and the
 * deep-JSON 500 (finding 7). The renderer itself is covered in tests/templates-render.test.ts.
 */
const SOURCE = `import { Html, Text } from "@react-email/components";
export default function Code({ code }) { return <Html><Text>Your sign-in code is {code}</Text></Html>; }`;

let org: TestOrg;
let reader: string;
let writer: string;
let templateId: string;
beforeAll(async () => {
  org = await newOrg();
  reader = (await newKey(org, { scopes: ["templates:read"] })).secret;
  writer = (await newKey(org, { scopes: ["templates:write", "templates:read"] })).secret;
  const created = await call("POST", "/v1/templates", {
    key: org.secret,
    body: {
      name: "Sign-in code",
      source: SOURCE,
      subject: "Your code",
      variables: { type: "object", properties: { code: { type: "string" } } },
    },
  });
  expect(created.status).toBe(200);
  templateId = created.body.template.id;
});

afterAll(async () => {
  await closeRenderer();
});

const preview = (key: string, body: Record<string, unknown>) =>
  call("POST", `/v1/templates/${templateId}/render`, { key, body });

describe("the sandbox boundary", () => {
  // The reported attack: a draft redefines the module of the published template (its id is the
  // sha256 of the source), so real sends carry the attacker's content and leak their props.
  const moduleId = createHash("sha256").update(SOURCE).digest("hex");
  const hijack = `export default function Hijack() {
  const g: any = globalThis;
  let outcome = "no __svc";
  try {
    g.__svc.define(${JSON.stringify(moduleId)}, function (module: any) {
      module.exports = { default: (p: any) => { try { g.stolen = JSON.stringify(p); } catch {} return "PHISHED https://evil.test"; } };
    });
    outcome = "planted";
  } catch (e) {
    if (g.__svc) outcome = "refused";
  }
  return <p>{outcome}</p>;
}`;
  const readBack = `export default function ReadBack() { return <p>stolen:{String((globalThis as any).stolen)}</p>; }`;

  test("a templates:read key cannot preview a draft; with templates:write the hijack fails and real renders are untouched", async () => {
    // Warm: the published version has rendered in the organization's context before the attack.
    const before = await preview(reader, { variables: { code: "111111" } });
    expect(before.status).toBe(200);
    expect(before.body.html).toContain("Your sign-in code is <!-- -->111111");

    const refused = await preview(reader, { draft: { source: hijack } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "scope_missing", param: "draft.source" });
    // A draft of a stored version's own source is no new code: the console's read-only preview.
    const storedDraft = await preview(reader, { draft: { source: SOURCE, subject: "Hi" }, variables: { code: "5" } });
    expect(storedDraft.status).toBe(200);
    expect(storedDraft.body.html).toContain("Your sign-in code is <!-- -->5");

    const attempted = await preview(writer, { draft: { source: hijack } });
    expect(attempted.status).toBe(200);
    expect(attempted.body.html).toContain("<p>no __svc</p>");

    // The stored version still renders itself, in a preview and in a send.
    const after = await preview(reader, { variables: { code: "424242" } });
    expect(after.body.html).toContain("Your sign-in code is <!-- -->424242");
    expect(after.body.html).not.toContain("PHISHED");
    const inbox = await newInbox(org, "codes");
    const send = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        to: "user@example.com",
        template: { id: templateId, variables: { code: "999999" } },
        dryRun: true,
      },
    });
    expect(send.status).toBe(200);
    expect(send.body.textPreview).toContain("999999");
    expect(send.body.textPreview).not.toContain("PHISHED");

    // Nothing a draft planted reads back the props of those renders.
    const read = await preview(writer, { draft: { source: readBack } });
    expect(read.status).toBe(200);
    expect(read.body.html).toContain("<p>stolen:<!-- -->undefined</p>");
  });

  test("a deep JSON.stringify in a draft is a 400 naming draft.source, not a 500", async () => {
    const deep = `export default function Deep() { let o: any = {}; for (let i = 0; i < 100_000; i++) o = { o }; return <p>{JSON.stringify(o).length}</p>; }`;
    const res = await preview(writer, { draft: { source: deep } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", param: "draft.source" });
    expect(res.body.error.message).toMatch(/stack overflow/);
    expect((await preview(reader, { variables: { code: "7" } })).status).toBe(200);
  });
});

describe("fair rendering through the API", () => {
  test("an organization over its share of the renderer gets 429 rate_limited with Retry-After", async () => {
    // A small renderer for this test: one render at a time per organization, none waiting.
    await closeRenderer();
    const holder = globalThis as { __svcTemplateRenderer?: SandboxPool };
    holder.__svcTemplateRenderer = createRenderer({
      workers: 1,
      tenantConcurrency: 1,
      tenantQueue: 0,
      limits: { timeoutMs: 300 },
    });
    const spin = `export default function Spin() { for (;;) {} }`;
    const results = await Promise.all(Array.from({ length: 3 }, () => preview(writer, { draft: { source: spin } })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([400, 429, 429]);
    for (const r of results.filter((r) => r.status === 429)) {
      expect(r.body.error.code).toBe("rate_limited");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    await closeRenderer();
  });
});
