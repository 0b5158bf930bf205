import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { expect, test } from "vitest";
import { MessageViews } from "@/components/console/messaging/message-views";
import { type HeaderSource, headerBlock } from "@/lib/console/message-headers";

const base: HeaderSource = {
  direction: "outbound",
  from: { address: "support@svc.localhost", name: "Support, Team" },
  to: ["ada@example.com"],
  cc: [],
  bcc: ["audit@example.com"],
  subject: "Your order",
  messageId: "<m1@svc.localhost>",
  inReplyTo: null,
  references: [],
  receivedAt: "2026-11-27T10:00:00.000Z",
  sentAt: "2026-11-27T10:00:05.000Z",
  createdAt: "2026-11-27T10:00:00.000Z",
};

test("an outbound message's header block: sent date, Bcc, Reply-To and custom headers, empty ones left out", () => {
  const block = headerBlock(base, { replyTo: "help@example.com", headers: { "X-Campaign": "winter" } });
  expect(block.split("\n")).toEqual([
    'From: "Support, Team" <support@svc.localhost>',
    "To: ada@example.com",
    "Bcc: audit@example.com",
    "Reply-To: help@example.com",
    "Subject: Your order",
    "Date: Fri, 27 Nov 2026 10:00:05 GMT",
    "Message-ID: <m1@svc.localhost>",
    "X-Campaign: winter",
  ]);
});

test("an inbound message: received date, never a Bcc; a stored value cannot add header lines", () => {
  const block = headerBlock(
    {
      ...base,
      direction: "inbound",
      subject: "hi\r\nX-Injected: yes",
      inReplyTo: "<p@x>",
      references: ["<a@x>", "<p@x>"],
      receivedAt: "2026-11-27T09:00:00.000Z",
    },
    null,
  );
  expect(block).toContain("Date: Fri, 27 Nov 2026 09:00:00 GMT");
  expect(block).not.toContain("Bcc:");
  expect(block).toContain("References: <a@x> <p@x>");
  expect(block.split("\n").some((l) => l.startsWith("X-Injected"))).toBe(false);
});

test("the plain-text and header views are text: markup in a message is never rendered as markup", () => {
  const evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
  const html = renderToStaticMarkup(
    createElement(MessageViews, { html: null, text: evil, headers: `Subject: ${evil}` }),
  );
  expect(html).not.toContain("<script>");
  expect(html).not.toContain("<img");
  expect(html).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
  // Without an HTML part the first view is the plain text.
  expect(html).toMatch(/role="tab" aria-selected="true"[^>]*>Plain text</);
});
