import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { sendScheduledMessage } from "@/lib/messages/send";
import { call, newInbox, newOrg, type TestOrg } from "./harness";
import { newContact, newTemplate } from "./resources";

/**
 * What a send says and whom it reaches (issue 15): `template` (version pinned at request time, a
 * scheduled send keeps it), `react` rendered in the sandbox, and contact references in to/cc/bcc
 * and `contactId`.
 */
let org: TestOrg;
let inbox: { id: string; address: string };
beforeAll(async () => {
  org = await newOrg();
  inbox = await newInbox(org, "compose");
});

const send = (body: Record<string, unknown>) =>
  call("POST", "/v1/messages", { key: org.secret, body: { inboxId: inbox.id, ...body } });
const message = async (id: string) => (await call("GET", `/v1/messages/${id}`, { key: org.secret })).body.message;
const source = (word: string) =>
  `import { Html, Text } from "@react-email/components";\nexport default function W({ name }) { return <Html><Text>${word} {name}</Text></Html>; }`;

describe("template", () => {
  test("renders the current version with the variables and its subject template; the message stores what was rendered", async () => {
    const t = await newTemplate(org);
    const res = await send({ to: "reader@example.com", template: { id: t.slug, variables: { name: "Ada" } } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("sent");
    const m = await message(res.body.id);
    expect(m.subject).toBe("Hi Ada");
    expect(m.htmlBody).toContain("Hello <!-- -->Ada");
    expect(m.textBody).toContain("Hello Ada");

    // `subject` wins over the subject template; defaults fill missing variables.
    const own = await send({ to: "reader@example.com", subject: "Own subject", template: { id: t.id } });
    const ownMessage = await message(own.body.id);
    expect(ownMessage.subject).toBe("Own subject");
    expect(ownMessage.textBody).toContain("Hello there");
  });

  test("refused synchronously, naming the field: with text/html/react, a bad variable, an unknown template, an archived one without a version", async () => {
    const t = await newTemplate(org);
    for (const extra of [{ text: "x" }, { html: "<p>x</p>" }, { react: { source: source("Hi") } }]) {
      const res = await send({ to: "reader@example.com", template: { id: t.id }, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", param: "template" });
    }
    const long = await send({ to: "reader@example.com", template: { id: t.id, variables: { name: "x".repeat(41) } } });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: "invalid_request", param: "template.variables.name" });
    const unknown = await send({ to: "reader@example.com", template: { id: "no-such-template" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "resource_not_found", param: "template.id" });
    const missing = await send({ to: "reader@example.com", template: { id: t.id, version: 7 } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.param).toBe("template.version");

    expect((await call("DELETE", `/v1/templates/${t.id}`, { key: org.secret })).status).toBe(200);
    const archived = await send({ to: "reader@example.com", template: { id: t.id } });
    expect(archived.status).toBe(400);
    expect(archived.body.error).toMatchObject({ code: "invalid_request", param: "template.version" });
    const explicit = await send({ to: "reader@example.com", template: { id: t.id, version: 1 } });
    expect(explicit.status).toBe(200);
  });

  test("the version is pinned when the request is accepted: a dry run names it, and a scheduled send fires with it after a newer one is published", async () => {
    const t = await newTemplate(org);
    const preview = await send({
      to: "reader@example.com",
      template: { id: t.id, variables: { name: "Bo" } },
      dryRun: true,
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ status: "preview", subject: "Hi Bo", template: { id: t.id, version: 1 } });
    expect(preview.body.textPreview).toContain("Hello Bo");

    const scheduled = await send({
      to: "reader@example.com",
      template: { id: t.id, variables: { name: "Cy" } },
      sendAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(scheduled.body.status).toBe("scheduled");
    const v2 = await call("POST", `/v1/templates/${t.id}/versions`, {
      key: org.secret,
      body: { source: source("Goodbye"), subject: "Bye {{ name }}" },
    });
    expect(v2.body.template.currentVersion).toBe(2);
    expect(await sendScheduledMessage(await getDb(), scheduled.body.id)).toEqual({ status: "sent", error: null });
    const fired = await message(scheduled.body.id);
    expect(fired.subject).toBe("Hi Cy");
    expect(fired.textBody).toContain("Hello Cy");
    expect(fired.textBody).not.toContain("Goodbye");
  });
});

describe("react", () => {
  test("renders the source with its props in the sandbox; a text beside it is the plain part", async () => {
    const res = await send({
      to: "reader@example.com",
      subject: "React",
      react: { source: source("Hey"), props: { name: "Di" } },
    });
    expect(res.status).toBe(200);
    const m = await message(res.body.id);
    expect(m.htmlBody).toContain("Hey <!-- -->Di");
    expect(m.textBody).toContain("Hey Di");
    const withText = await message(
      (
        await send({
          to: "reader@example.com",
          react: { source: source("Hey"), props: { name: "Di" } },
          text: "Plain words",
        })
      ).body.id,
    );
    expect(withText.textBody).toBe("Plain words");
    expect(withText.htmlBody).toContain("Hey <!-- -->Di");
  });

  test("hostile or broken sources are a 400 naming react.source, nothing is stored, and the server keeps rendering", async () => {
    const before = (await call("GET", `/v1/messages?inboxId=${inbox.id}&limit=100`, { key: org.secret })).body.messages
      .length;
    const hostile = [
      'import fs from "node:fs";\nexport default function W() { return fs.readFileSync("/etc/passwd", "utf8"); }',
      "export default function W() { while (true) {} }",
      "export default function W() { return process.env.SECRETS_KEY; }",
      "export default function W( { return 1 }",
    ];
    for (const src of hostile) {
      const res = await send({ to: "reader@example.com", react: { source: src } });
      expect(res.status, src).toBe(400);
      expect(res.body.error, src).toMatchObject({ code: "invalid_request", param: "react.source" });
    }
    const html = await send({ to: "reader@example.com", react: { source: source("Hi") }, html: "<p>x</p>" });
    expect(html.body.error).toMatchObject({ code: "invalid_request", param: "react" });
    const props = await send({
      to: "reader@example.com",
      react: { source: source("Hi"), props: { name: "x".repeat(40_000) } },
    });
    expect(props.status).toBe(400);
    expect(props.body.error.param).toBe("react.props");
    expect(
      (await call("GET", `/v1/messages?inboxId=${inbox.id}&limit=100`, { key: org.secret })).body.messages.length,
    ).toBe(before);
    expect(
      (await send({ to: "reader@example.com", react: { source: source("Still"), props: { name: "fine" } } })).status,
    ).toBe(200);
  }, 60_000);
});

describe("contact references", () => {
  test("@alias, contact:<id> and @me in to, cc and bcc, and contactId, become the contacts' primary addresses", async () => {
    const tag = Date.now().toString(36);
    await newContact(org, {
      alias: `ada-${tag}`,
      handles: [
        { channel: "email", value: `old-${tag}@example.com` },
        { channel: "email", value: `Ada-${tag}@Example.com`, isPrimary: true },
      ],
    });
    const bo = await newContact(org, { handles: [{ channel: "email", value: `bo-${tag}@example.com` }] });
    const cy = await newContact(org, { handles: [{ channel: "email", value: `cy-${tag}@example.com` }] });
    expect((await call("PATCH", "/v1/contacts/@me", { key: org.secret, body: { displayName: "Us" } })).status).toBe(
      200,
    );
    const me = await call("POST", "/v1/contacts/@me/handles", {
      key: org.secret,
      body: { channel: "email", value: `me-${tag}@example.com`, isPrimary: true },
    });
    expect(me.status).toBe(200);

    const res = await send({
      to: [`@ADA-${tag}`],
      cc: `contact:${bo.id}`,
      bcc: ["@me"],
      contactId: cy.id,
      subject: "Refs",
      text: "x",
    });
    expect(res.status).toBe(200);
    const m = await message(res.body.id);
    expect(m.to).toEqual([`ada-${tag}@example.com`, `cy-${tag}@example.com`]);
    expect(m.cc).toEqual([`bo-${tag}@example.com`]);
    expect(m.bcc).toEqual([`me-${tag}@example.com`]);
    const byRef = await send({ to: "other@example.com", contactId: `@ada-${tag}`, text: "x", dryRun: true });
    expect(byRef.body.to).toEqual(["other@example.com", `ada-${tag}@example.com`]);
  });

  test("an unknown contact is 404 and a contact without an address is 400, naming the field; another organization's contact is unknown", async () => {
    const other = await newOrg();
    const theirs = await newContact(other, { alias: `theirs-${Date.now().toString(36)}` });
    const none = await newContact(org, {
      handles: [
        {
          channel: "postal",
          value: "1 Main St",
          metadata: { name: "N", street: "1 Main St", postalCode: "10115", city: "Berlin", country: "DE" },
        },
      ],
    });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ to: ["reader@example.com", "@nobody-here"] }, 404, "to[1]"],
      [{ to: "reader@example.com", cc: `contact:${theirs.id}` }, 404, "cc"],
      [{ to: "reader@example.com", bcc: [`@${theirs.alias}`] }, 404, "bcc[0]"],
      [{ to: "reader@example.com", contactId: theirs.id }, 404, "contactId"],
      [{ to: `contact:${none.id}` }, 400, "to"],
    ];
    for (const [body, status, param] of cases) {
      const res = await send({ ...body, text: "x" });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.param, JSON.stringify(body)).toBe(param);
    }
  });
});
