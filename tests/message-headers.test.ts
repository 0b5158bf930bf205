import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { attachments } from "@/db/schema";
import { isMediaType, safeMediaType } from "@/lib/core/media-type";
import { env } from "@/lib/env";
import { isMessageId, isReservedHeader, messageIdsIn } from "@/lib/channels/email/headers";
import { call, callRaw, newInbox, newOrg } from "./harness";

/** Issue 10 #9 (media types at the edge) and #12 (reserved headers, Message-IDs). */

beforeAll(async () => {
  await getDb(); // opening the embedded database is the slow part; not inside a test's time limit
});

test("media types: RFC 6838 names and RFC 9110 parameters, nothing else", () => {
  const good = [
    "text/plain",
    "text/plain; charset=utf-8",
    'text/csv;charset="utf-8"',
    "application/vnd.ms-excel",
    "image/svg+xml",
    'multipart/mixed; boundary="a b"',
    "application/x-foo.bar_baz",
  ];
  const bad = [
    "text/plain\r\nX-Injected: 1",
    "text/html\n",
    "text",
    "/plain",
    "text/",
    "text/plain; charset",
    "text/plain; =x",
    "téxt/plain",
    "text/plain\u0000",
    "text /plain",
    'text/plain; a="unterminated',
    ".text/plain",
    "text/plain;a=b c",
    "x".repeat(200) + "/" + "y".repeat(60),
  ];
  for (const t of good) expect(isMediaType(t), t).toBe(true);
  for (const t of bad) expect(isMediaType(t), JSON.stringify(t)).toBe(false);
  expect(safeMediaType("text/html\r\nSet-Cookie: a=b")).toBe("application/octet-stream");
  expect(safeMediaType(null)).toBe("application/octet-stream");
  expect(safeMediaType("image/png")).toBe("image/png");
});

test("Message-IDs: RFC 5322 msg-id (brackets optional on input), and received headers keep only valid ids", () => {
  for (const id of ["<a@b.test>", "a@b.test", "<a.b+c@[127.0.0.1]>", "<1234.5678@mail.example.com>", "  <x@y>  "])
    expect(isMessageId(id), id).toBe(true);
  for (const id of [
    "<a@b.test> X-Inj: 1>",
    "<a@b.test>\r\nX-Inj: 1",
    "<a b@c>",
    "<@b>",
    "<a@>",
    "<a@b@c>",
    "<<a@b>>",
    "a",
    "<a..b@c>",
    "<a@b\u0000>",
  ])
    expect(isMessageId(id), JSON.stringify(id)).toBe(false);
  expect(messageIdsIn("<a@b> <c@d>")).toEqual(["<a@b>", "<c@d>"]);
  // Lenient on what arrives: the well-formed id in a damaged header is kept, the rest dropped.
  expect(messageIdsIn(["<a@b.test> X-Inj: 1>", "<x y@z>", "<ok@x>"])).toEqual(["<a@b.test>", "<ok@x>"]);
  expect(messageIdsIn("bare@id")).toEqual(["<bare@id>"]);
  expect(messageIdsIn(undefined)).toEqual([]);
});

test("reserved header names, case-insensitively", () => {
  for (const h of [
    "Authentication-Results",
    "received",
    "Received-SPF",
    "Resent-From",
    "RESENT-MESSAGE-ID",
    "ARC-Seal",
    "arc-authentication-results",
    "DKIM-Signature",
    "X-Svc-Provenance",
    "x-svc-anything",
    "From",
    "Message-ID",
    "Content-Type",
  ]) {
    expect(isReservedHeader(h), h).toBe(true);
  }
  for (const h of ["X-Campaign", "List-Unsubscribe", "X-Arc", "Receivedx", "X-Received-By-App"])
    expect(isReservedHeader(h), h).toBe(false);
});

test("send: reserved headers, bad Message-IDs and bad media types are 400 naming the field; nothing is stored", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "hdr");
  const base = { inboxId: inbox.id, to: "someone@example.com", text: "x" };
  const file = (contentType: string) => [{ filename: "a.txt", contentBase64: "aGk=", contentType }];
  const cases: [Record<string, unknown>, string][] = [
    [{ ...base, headers: { "Authentication-Results": "mx.example; dkim=pass" } }, "headers.Authentication-Results"],
    [{ ...base, headers: { Received: "from trusted" } }, "headers.Received"],
    [{ ...base, headers: { "Resent-From": "ceo@example.com" } }, "headers.Resent-From"],
    [{ ...base, headers: { "ARC-Seal": "i=1; cv=none" } }, "headers.ARC-Seal"],
    [{ ...base, headers: { "dkim-signature": "v=1" } }, "headers.dkim-signature"],
    [{ ...base, headers: { "X-Svc-Provenance": "eyJ..." } }, "headers.X-Svc-Provenance"],
    [{ ...base, headers: { "X-Ok": "fine", "Bad Name": "x" } }, "headers.Bad Name"],
    [{ ...base, headers: { "X-Split": "a\r\nBcc: victim@example.com" } }, "headers.X-Split"],
    [{ ...base, inReplyTo: "<a@b.test> X-Inj: 1>" }, "inReplyTo"],
    [{ ...base, inReplyTo: "<a@b.test>\r\nBcc: x@y" }, "inReplyTo"],
    [{ ...base, references: ["<ok@x>", "not an id"] }, "references[1]"],
    [{ ...base, attachments: file("text/html\r\nX-Injected: 1") }, "attachments[0].contentType"],
    [{ ...base, attachments: file("html") }, "attachments[0].contentType"],
  ];
  for (const [body, param] of cases) {
    const res = await call("POST", "/v1/messages", { key: org.secret, body });
    expect(res.status, param).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", param });
  }
  const list = await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret });
  expect(list.body.messages).toEqual([]);

  const ok = await call("POST", "/v1/messages", {
    key: org.secret,
    body: {
      ...base,
      inReplyTo: "parent@example.com",
      references: ["<root@example.com>"],
      headers: { "List-Unsubscribe": "<mailto:u@example.com>" },
      attachments: file("text/plain; charset=utf-8"),
    },
  });
  expect(ok.status).toBe(200);
  const text = fs.readFileSync(path.join(env.OUTBOX_DIR, `${ok.body.providerMessageId}.eml`), "utf8");
  expect(text).toContain("In-Reply-To: <parent@example.com>");
  expect(text).toContain("List-Unsubscribe: <mailto:u@example.com>");
});

test("an attachment stored with a broken media type downloads as application/octet-stream, not a 500", async () => {
  const org = await newOrg();
  const inbox = await newInbox(org, "legacy");
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: {
      inboxId: inbox.id,
      to: "x@example.com",
      text: "x",
      attachments: [{ filename: "a.html", contentBase64: "aGk=", contentType: "text/html" }],
    },
  });
  const att = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message.attachments[0];
  // A row written before the edge validated media types.
  await (await getDb())
    .update(attachments)
    .set({ contentType: "text/html\r\nX-Injected: 1" })
    .where(eq(attachments.id, att.id));
  const res = await callRaw("GET", `/v1/attachments/${att.id}/content`, { key: org.secret });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/octet-stream");
  expect(res.headers.get("x-injected")).toBeNull();
  expect(await res.text()).toBe("hi");
});
