import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import { projectRoot } from "@/lib/env";
import {
  createRenderer,
  nodeSnapshotDisabled,
  renderEmailFile,
  renderReact,
  TemplateError,
  type TemplateErrorCode,
} from "@/lib/templates/render";
import type { SandboxPool } from "@/lib/templates/render/pool";

// A typical react-email template: the shape the benchmark renders too.
const WELCOME = `import { Body, Button, Container, Head, Heading, Hr, Html, Link, Preview, Section, Text } from "@react-email/components";

interface Props { name: string; product?: string; url: string }

export default function Welcome({ name, product = "Svc", url }: Props) {
  return (
    <Html lang="en">
      <Head />
      <Preview>Welcome to {product}, {name}</Preview>
      <Body style={{ backgroundColor: "#f6f7f9", fontFamily: "sans-serif" }}>
        <Container style={{ maxWidth: 480, padding: 32 }}>
          <Heading as="h1">Hi {name}</Heading>
          <Section>
            <Text>Thanks for signing up to {product}.</Text>
            <Button href={url} style={{ padding: "10px 18px" }}>Get started</Button>
          </Section>
          <Hr />
          <Text>Or open <Link href={url}>{url}</Link></Text>
        </Container>
      </Body>
    </Html>
  );
}
`;

const jsx = (body: string, head = "") => `${head}\nexport default function Email(props: any) {\n${body}\n}\n`;

// A small heap and output limit so the hostile cases fail fast (the default time limit, so a loaded CI
// machine does not turn slow honest renders into timeouts); a short hard deadline replaces a stuck worker quickly.
const LIMITS = { timeoutMs: 1000, memoryMb: 32, maxOutputChars: 200_000 };

interface Case {
  name: string;
  source: string;
  props?: Record<string, unknown>;
  /** The expected error code (or codes); `null` when the render succeeds (and `check` looks at it). */
  code: TemplateErrorCode | TemplateErrorCode[] | null;
  message?: RegExp;
  check?: (html: string) => void;
  /** A different outcome under isolated-vm, where V8 runs pending promise jobs after each call. */
  ivm?: TemplateErrorCode[];
}

const HOSTILE: Case[] = [
  {
    name: 'import "node:fs"',
    source: jsx("return null;", 'import fs from "node:fs";'),
    code: "import_not_allowed",
    message: /node:fs/,
  },
  { name: "side-effect import", source: jsx("return null;", 'import "fs";'), code: "import_not_allowed" },
  {
    name: "import child_process",
    source: jsx("return null;", 'import { exec } from "child_process"; exec("id");'),
    code: "import_not_allowed",
  },
  {
    name: "import a relative file",
    source: jsx("return null;", 'import x from "../../db/client";'),
    code: "import_not_allowed",
  },
  {
    name: "import react-dom/server",
    source: jsx("return null;", 'import x from "react-dom/server";'),
    code: "import_not_allowed",
  },
  {
    name: "import a URL",
    source: jsx("return null;", 'import x from "https://example.com/x.js";'),
    code: "import_not_allowed",
  },
  { name: "require a literal", source: jsx('const fs = require("fs"); return fs;'), code: "import_not_allowed" },
  {
    name: "require a computed name",
    source: jsx('const n = ["f", "s"].join(""); const fs = require(n); return null;'),
    code: "import_not_allowed",
    message: /"fs" is not allowed/,
  },
  {
    name: "dynamic import of a literal",
    source: jsx('void import("node:fs"); return null;'),
    code: "import_not_allowed",
  },
  {
    name: "dynamic import of a computed name",
    source: jsx(
      'const n = "f" + "s"; let got = "nothing"; import(n).then((m) => { got = String(Object.keys(m)); }, () => {}); return <p>{got}</p>;',
    ),
    code: null,
    check: (html) => expect(html).toContain("<p>nothing</p>"),
  },
  {
    name: "process",
    source: jsx("return <p>{process.env.DATABASE_URL}</p>;"),
    code: "render_error",
    message: /process/,
  },
  { name: "process.exit", source: jsx("process.exit(1); return null;"), code: "render_error" },
  {
    name: "fetch",
    source: jsx('fetch("http://127.0.0.1:5432/"); return null;'),
    code: "render_error",
    message: /fetch/,
  },
  {
    name: "globalThis.require",
    source: jsx(
      "const g = globalThis as any; return <p>{`${typeof g.require}|${typeof g.module}|${typeof g.Buffer}|${typeof g.WebAssembly}`}</p>;",
    ),
    code: null,
    check: (html) => expect(html).toContain("<p>undefined|undefined|undefined|undefined</p>"),
  },
  {
    name: "Function constructor escape",
    source: jsx(
      'const g = (function () {}).constructor("return this")(); return <p>{`${typeof g.process}|${typeof g.require}`}</p>;',
    ),
    code: null,
    check: (html) => expect(html).toContain("<p>undefined|undefined</p>"),
  },
  {
    name: "setTimeout",
    source: jsx("setTimeout(() => {}, 1); return null;"),
    code: "render_error",
    message: /setTimeout/,
  },
  { name: "infinite loop", source: jsx("while (true) {} "), code: "timeout" },
  { name: "infinite loop that catches", source: jsx("for (;;) { try { for (;;) {} } catch (e) {} }"), code: "timeout" },
  { name: "infinite loop at module top level", source: `while (true) {}\nexport default () => null;`, code: "timeout" },
  { name: "eval of a loop", source: jsx('(0, eval)("for (;;) {}"); return null;'), code: "timeout" },
  {
    name: "catastrophic regular expression",
    source: jsx('return <p>{String(/^(a+)+$/.test("a".repeat(40) + "b"))}</p>;'),
    code: "timeout",
  },
  // QuickJS reaches its memory limit slowly (garbage collection on every allocation near the limit);
  // the worker's hard deadline ends those that the limit does not end first.
  {
    name: "memory bomb (typed arrays)",
    source: jsx("const a: Float64Array[] = []; for (;;) a.push(new Float64Array(1 << 20));"),
    code: ["memory_limit", "timeout"],
  },
  {
    name: "memory bomb (objects)",
    source: jsx("const a: unknown[] = []; for (;;) a.push({ n: a.length, b: [1, 2, 3] });"),
    code: ["memory_limit", "timeout"],
  },
  {
    name: "memory bomb (flattened strings)",
    source: jsx(
      'let s = "x"; for (let i = 0; i < 22; i++) s += s; const a: string[] = []; for (;;) a.push(s.toUpperCase());',
    ),
    code: ["memory_limit", "timeout"],
  },
  {
    name: "string doubling",
    source: jsx('let s = "x"; for (;;) s += s;'),
    code: ["render_error", "memory_limit"],
    message: /string too long|memory/,
  },
  {
    name: "deep recursion",
    source: jsx("const f = (n: number): number => f(n + 1) + 1; return <p>{f(0)}</p>;"),
    code: "stack_overflow",
  },
  {
    name: "infinitely nested components",
    source: `const R = (): any => <div><R /></div>;\nexport default R;`,
    code: "stack_overflow",
  },
  { name: "giant output", source: jsx('return <p>{"x".repeat(300_000)}</p>;'), code: "output_too_large" },
  {
    name: "many elements",
    source: jsx('return <div>{Array.from({ length: 300 }, (_, i) => <p key={i}>{"y".repeat(1000)}</p>)}</div>;'),
    code: "output_too_large",
  },
  {
    name: "async component",
    source: `export default async function Email() { return <p>hi</p>; }`,
    code: "render_error",
    message: /synchronous/,
  },
  {
    name: "Tailwind",
    source: jsx(
      "return <Tailwind><p className='p-4'>x</p></Tailwind>;",
      'import { Tailwind } from "@react-email/components";',
    ),
    code: "render_error",
    message: /Tailwind is not available/,
  },
  {
    name: "unknown component",
    source: jsx("return <Nope />;", 'import { Nope } from "@react-email/components";'),
    code: "render_error",
    message: /component is undefined/,
  },
  {
    name: "syntax error",
    source: "export default function Email( {\n  return <p>;\n}",
    code: "compile_error",
    message: /line \d+/,
  },
  { name: "no default export", source: "export const Email = () => null;", code: "invalid_export" },
  { name: "default export is not a component", source: "export default 42;", code: "invalid_export" },
  { name: "throws a huge message", source: jsx('throw new Error("x".repeat(1_000_000));'), code: "render_error" },
  {
    name: "throws a value whose getter spins",
    source: jsx('const e = new Error("a"); Object.defineProperty(e, "message", { get() { for (;;) {} } }); throw e;'),
    code: "timeout",
  },
  {
    name: "throws an object whose toJSON spins",
    source: jsx("throw { toJSON() { for (;;) {} } };"),
    code: "render_error",
  },
  {
    name: "pending promise jobs",
    source: jsx("const f = (): any => Promise.resolve().then(f); f(); return <p>ok</p>;"),
    code: null,
    check: (html) => expect(html).toContain("<p>ok</p>"),
    ivm: ["timeout"],
  },
  {
    name: "replacing the sandbox API",
    source: jsx(
      'const g: any = globalThis; try { g.__svc = { render: () => "pwned" }; } catch {} try { g.__svc.render = () => "pwned"; } catch {} try { Object.defineProperty(g, "__svc", { value: 1 }); } catch {} return <p>kept</p>;',
    ),
    code: null,
    check: (html) => expect(html).toContain("<p>kept</p>"),
  },
  {
    name: "prototype pollution inside the sandbox (frozen: the writes do nothing)",
    source: jsx(
      '(Object.prototype as any).polluted = "yes"; JSON.parse = () => ({}); return <p>{({} as any).polluted}|{JSON.parse("[7]")[0]}</p>;',
    ),
    code: null,
    check: (html) => expect(html).toContain("<p>|<!-- -->7</p>"),
  },
  {
    name: "prototype pollution in strict code",
    source: `"use strict";\n${jsx('(Object.prototype as any).polluted = "yes"; return null;')}`,
    code: "render_error",
    message: /read.only|not extensible|polluted/,
  },
  {
    name: "the host API is not on the global object",
    source: jsx(
      "const g = globalThis as any; return <p>{`${typeof g.__svc}|${Object.getOwnPropertyNames(g).filter((n) => n.includes('svc')).length}`}</p>;",
    ),
    code: null,
    check: (html) => expect(html).toContain("<p>undefined|0</p>"),
  },
  {
    name: "deep JSON.stringify (10^5 levels)",
    source: jsx(
      "let o: any = {}; for (let i = 0; i < 100_000; i++) o = { o }; return <p>{JSON.stringify(o).length}</p>;",
    ),
    code: "stack_overflow",
  },
  {
    name: "deep array join",
    source: jsx("let o: any = []; for (let i = 0; i < 100_000; i++) o = [o]; return <p>{String(o).length}</p>;"),
    code: "stack_overflow",
  },
  {
    name: "deep JSON.parse",
    source: jsx('const s = "[".repeat(100_000) + "]".repeat(100_000); return <p>{JSON.parse(s).length}</p>;'),
    code: "stack_overflow",
  },
  {
    name: "JSON.stringify output as the built-in's",
    source: jsx(
      'return <p>{JSON.stringify({ a: [1, "x\\n", null, undefined, () => 1, { b: new Date(0) }], n: new Number(3), s: Symbol("x") }, null, 2)}|{JSON.stringify({ a: 1, b: 2, c: { a: 3 } }, ["a", "c"])}|{String(JSON.stringify(undefined))}</p>;',
    ),
    code: null,
    check: (html) =>
      expect(html).toContain(
        `<p>${JSON.stringify({ a: [1, "x\n", null, undefined, () => 1, { b: new Date(0) }], n: 3 }, null, 2).replaceAll('"', "&quot;")}<!-- -->|<!-- -->{&quot;a&quot;:1,&quot;c&quot;:{&quot;a&quot;:3}}<!-- -->|<!-- -->undefined</p>`,
      ),
  },
  {
    name: "__proto__ in props",
    source: jsx("return <p>{String(({} as any).polluted2)}|{String(props.polluted2)}</p>;"),
    props: JSON.parse('{"__proto__": {"polluted2": "yes"}}') as Record<string, unknown>,
    code: null,
    check: (html) => expect(html).toContain("<p>undefined<!-- -->|"),
  },
  {
    name: "deeply nested props",
    // The API refuses input nested deeper than 32; the renderer parses 4,000 levels, and the sandbox's
    // JSON.stringify (JavaScript, see sandbox/entry.ts) serializes 1,000 of them.
    source: jsx(
      "let d = 0; let o: any = props; while (typeof o === 'object') { o = o.a; d++; } let x: any = props; for (let i = 0; i < 3000; i++) x = x.a; return <p>{d}|{JSON.stringify(x).length}</p>;",
    ),
    props: JSON.parse(`${'{"a":'.repeat(4000)}1${"}".repeat(4000)}`) as Record<string, unknown>,
    code: null,
    check: (html) => expect(html).toContain("<p>4000<!-- -->|<!-- -->6001</p>"),
  },
];

describe("template renderer (QuickJS sandbox)", () => {
  let pool: SandboxPool;
  beforeAll(() => {
    pool = createRenderer({ engine: "quickjs", workers: 1, limits: LIMITS, hardGraceMs: 1500 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it("renders a typical react-email template to HTML and text, warm after the first render", async () => {
    const first = await renderReact(
      {
        tenant: "org:typical",
        source: WELCOME,
        props: { name: "Ada", url: "https://example.com/start" },
        stored: true,
      },
      pool,
    );
    expect(first.cold).toBe(true);
    expect(first.html.startsWith('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"')).toBe(true);
    expect(first.html).toContain("Hi <!-- -->Ada");
    expect(first.html).toContain('href="https://example.com/start"');
    expect(first.text).toContain("Thanks for signing up to Svc.");
    const second = await renderReact(
      { tenant: "org:typical", source: WELCOME, props: { name: "Bob", url: "https://example.com/b" }, stored: true },
      pool,
    );
    expect(second.cold).toBe(false);
    expect(second.html).toContain("Hi <!-- -->Bob");
  });

  it("renders the same markup as @react-email/render in the host (the components are the same)", async () => {
    const { render } = await import("@react-email/render");
    const React = await import("react");
    const { Html, Body, Text, Button } = await import("@react-email/components");
    const host = await render(
      React.createElement(
        Html,
        null,
        React.createElement(
          Body,
          null,
          React.createElement(Text, null, "Hello"),
          React.createElement(Button, { href: "https://x.test" }, "Go"),
        ),
      ),
    );
    const source = `import { Html, Body, Text, Button } from "@react-email/components";
export default () => <Html><Body><Text>Hello</Text><Button href="https://x.test">Go</Button></Body></Html>;`;
    const sandboxed = await renderReact({ tenant: "org:compare", source }, pool);
    // The host's streaming renderer adds Suspense and singleton markers (<!--$-->, <!--html-->): comments only.
    const markers = /<!--(\$|\/\$|html|head|body)-->/g;
    expect(sandboxed.html).toBe(host.replace(markers, ""));
  });

  // Each case in a tenant of its own: a source that pollutes its context only affects its own tenant.
  it.each(HOSTILE)("hostile source: $name", async (c) => {
    const outcome = await renderReact(
      { tenant: `org:hostile:${c.name}`, source: c.source, props: c.props, param: "react" },
      pool,
    ).then(
      (r) => ({ ok: true as const, html: r.html }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    if (c.code === null) {
      if (!outcome.ok) throw outcome.err;
      c.check?.(outcome.html);
    } else {
      expect(outcome.ok).toBe(false);
      const err = (outcome as { err: unknown }).err;
      expect(err).toBeInstanceOf(TemplateError);
      const te = err as TemplateError;
      expect(Array.isArray(c.code) ? c.code : [c.code], `${te.code}: ${te.message}`).toContain(te.code);
      if (c.message) expect(te.message).toMatch(c.message);
      expect(te.isClientError).toBe(true);
      expect(te.param).toMatch(/^react\.(source|props)$/);
      expect(te.message.length).toBeLessThan(1000);
    }
    // The host is untouched and the renderer still works, for this tenant and for others.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted2).toBeUndefined();
    expect([1].includes(2)).toBe(false);
    expect(JSON.parse('{"a":1}')).toEqual({ a: 1 });
    const healthy = await renderReact(
      { tenant: "org:other", source: WELCOME, props: { name: "Eve", url: "https://example.com/e" } },
      pool,
    );
    expect(healthy.html).toContain("Hi <!-- -->Eve");
  });

  // Issue 22 (finding 2): `Object.prototype.get = 1` in one render made the next benign render of the
  // same organization fail with "TypeError: invalid getter"; `globalThis` writes carried over too.
  it("prototype pollution is gone before the next render, in the same and in another organization", async () => {
    const polluter = jsx(
      'const P: any = Object.prototype; try { P.get = 1; P.polluted = "yes"; (Array.prototype as any).join = () => "pwned"; (globalThis as any).leak = "from-a"; } catch {} return <p>a</p>;',
    );
    const probe = jsx(
      'return <p>{`${String((globalThis as any).leak)}|${String(({} as any).polluted)}|${["x", "y"].join("-")}`}</p>;',
    );
    const welcome = (tenant: string) =>
      renderReact({ tenant, source: WELCOME, props: { name: "Eve", url: "https://e.test" }, stored: true }, pool);
    for (const stored of [true, false]) {
      await renderReact({ tenant: "org:polluter", source: polluter, stored }, pool);
      for (const tenant of ["org:polluter", "org:bystander"]) {
        expect((await welcome(tenant)).html).toContain("Hi <!-- -->Eve");
        const seen = await renderReact({ tenant, source: probe, stored: true }, pool);
        expect(seen.html).toContain("<p>undefined|undefined|x-y</p>");
      }
    }
  });

  // Issue 22 (finding 7): JSON.stringify of a very deep object answered 500 (the worker thread's own
  // stack overflowed inside the engine) and dropped every organization's warm context on that worker.
  it("a deep JSON.stringify is the template's stack_overflow, and other tenants keep their warm contexts", async () => {
    const welcome = () =>
      renderReact(
        { tenant: "org:warm", source: WELCOME, props: { name: "W", url: "https://w.test" }, stored: true },
        pool,
      );
    await welcome();
    expect((await welcome()).cold).toBe(false);
    // 10^5 levels (10^6 in the report; building that many objects alone takes QuickJS longer than the time limit).
    const deep = jsx(
      "let o: any = {}; for (let i = 0; i < 100_000; i++) o = { o }; return <p>{JSON.stringify(o).length}</p>;",
    );
    for (const stored of [false, true]) {
      await expect(
        renderReact({ tenant: "org:deep", source: deep, param: "react", stored }, pool),
      ).rejects.toMatchObject({ code: "stack_overflow", param: "react.source", isClientError: true });
    }
    expect((await welcome()).cold).toBe(false);
  });

  it("refuses oversized sources and props before compiling", async () => {
    await expect(
      renderReact({ tenant: "org:x", source: `${jsx("return null;")}//${"x".repeat(65_536)}`, param: "react" }, pool),
    ).rejects.toMatchObject({
      code: "source_too_large",
      param: "react.source",
    });
    await expect(
      renderReact({ tenant: "org:x", source: WELCOME, props: { name: "x".repeat(33 * 1024) }, param: "react" }, pool),
    ).rejects.toMatchObject({
      code: "props_too_large",
      param: "react.props",
    });
  });

  it("serves concurrent renders of many tenants", async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        renderReact(
          { tenant: `org:c${i % 5}`, source: WELCOME, props: { name: `N${i}`, url: "https://example.com" } },
          pool,
        ),
      ),
    );
    results.forEach((r, i) => expect(r.html).toContain(`Hi <!-- -->N${i}`));
  });
});

const hasIsolatedVm = (() => {
  try {
    createRequire(import.meta.url).resolve("isolated-vm");
    return nodeSnapshotDisabled();
  } catch {
    return false;
  }
})();

// isolated-vm is optional (not in package.json): run `npm install --no-save isolated-vm@5.0.4` and
// the suite with NODE_OPTIONS=--no-node-snapshot to cover it.
describe.skipIf(!hasIsolatedVm)("template renderer (isolated-vm sandbox)", () => {
  let pool: SandboxPool;
  beforeAll(() => {
    pool = createRenderer({ engine: "isolated-vm", workers: 1, limits: LIMITS, hardGraceMs: 1500 });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it.each(HOSTILE)("hostile source: $name", async (c) => {
    const outcome = await renderReact(
      { tenant: `org:hostile:${c.name}`, source: c.source, props: c.props, param: "react" },
      pool,
    ).then(
      (r) => ({ ok: true as const, html: r.html }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    if (c.code === null && !c.ivm) {
      if (!outcome.ok) throw outcome.err;
      c.check?.(outcome.html);
    } else {
      expect(outcome.ok).toBe(false);
      const te = (outcome as { err: TemplateError }).err;
      if (c.ivm) expect(c.ivm).toContain(te.code);
      expect(te).toBeInstanceOf(TemplateError);
      expect(te.isClientError).toBe(true);
    }
    const healthy = await renderReact(
      { tenant: "org:other", source: WELCOME, props: { name: "Eve", url: "https://example.com/e" } },
      pool,
    );
    expect(healthy.html).toContain("Hi <!-- -->Eve");
  });
});

// Issue 22 (finding 3): thirty concurrent `for(;;)` previews of one organization made a sign-in email
// (the `system` tenant, hashed onto the same worker) wait 29.9 s, and filled a 1,000-job queue.
describe("fair rendering", () => {
  it("one organization's for(;;) flood gets 429s, while a sign-in email and another organization's render complete", async () => {
    const pool = createRenderer({
      engine: "quickjs",
      workers: 2,
      systemWorkers: 1,
      tenantConcurrency: 1,
      tenantQueue: 1,
      limits: { timeoutMs: 1000, memoryMb: 32 },
      hardGraceMs: 1500,
    });
    try {
      const emails = path.join(projectRoot, "emails");
      const signIn = () =>
        renderEmailFile(
          path.join(emails, "magic-link.tsx"),
          emails,
          { url: "https://svc.test/x", host: "svc.test" },
          pool,
        );
      const calm = () =>
        renderReact(
          { tenant: "org:calm", source: WELCOME, props: { name: "Cal", url: "https://c.test" }, stored: true },
          pool,
        );
      // Warm first: the figures below are renders in warm contexts, as in the report.
      await Promise.all([signIn(), calm()]);
      let timedOut = 0;
      const flood = Array.from({ length: 30 }, () =>
        renderReact({ tenant: "org:flood", source: jsx("for (;;) {}") }, pool).then(
          () => null,
          (err: TemplateError) => {
            if (err.code === "timeout") timedOut++;
            return err;
          },
        ),
      );
      // Both finish while the flood's first render is still spinning: before any flood render has timed
      // out (each runs for the full 1 s time limit; a warm render takes milliseconds, so the margin is wide).
      const [mail, other] = await Promise.all([signIn(), calm()]);
      expect(timedOut).toBe(0);
      expect(mail.html).toContain("svc.test");
      expect(other.html).toContain("Hi <!-- -->Cal");
      const outcomes = await Promise.all(flood);
      // One running and one waiting; the other 28 are refused at once, never queued.
      const limited = outcomes.filter((e) => e?.code === "rate_limited");
      expect(limited).toHaveLength(28);
      expect(limited.every((e) => (e?.retryAfterSeconds ?? 0) >= 1)).toBe(true);
      expect(outcomes.filter((e) => e?.code === "timeout")).toHaveLength(2);
    } finally {
      await pool.close();
    }
  });
});

describe("the product's own emails", () => {
  it("render through the sandbox like react-email renders them in the host", async () => {
    const { renderSystemEmail } = await import("@/lib/mail/system");
    const { render } = await import("@react-email/render");
    const { default: MagicLinkEmail } = await import("@/emails/magic-link");
    const props = { url: "https://svc.test/api/auth/callback/email?token=t", host: "svc.test", expiresMinutes: 15 };
    const sandboxed = await renderSystemEmail("magic-link", props);
    const host = await render(MagicLinkEmail(props));
    expect(sandboxed.html).toBe(host.replace(/<!--(\$|\/\$|html|head|body)-->/g, ""));
    expect(sandboxed.text).toContain("Use the button below to sign in.");
    const invitation = await renderSystemEmail("invitation", {
      url: "https://svc.test/i/x",
      organization: "Acme",
      role: "admin",
      invitedBy: null,
      expiresDays: 7,
    });
    expect(invitation.html).toContain("Join Acme");
    expect(invitation.text).toContain("Someone invited you");
  });
});
