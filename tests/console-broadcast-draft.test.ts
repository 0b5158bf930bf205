import { and, eq } from "drizzle-orm";
import { expect, test, vi } from "vitest";
import { getDb } from "@/db";
import { broadcasts, messages } from "@/db/schema";
import { signIn } from "./console-session";
import { newInbox, newOrg } from "./harness";
import { newTemplate } from "./resources";

/**
 * The audience send form's "Preview" and "Send a test" before a broadcast exists: the preview
 * renders the draft (a template through `renderTemplate`, with the form's variables), the test sends
 * one message to one address and queues no broadcast.
 */
vi.mock("@/lib/console/context", () => import("./console-session").then((m) => m.consoleContextMock));

const { previewBroadcastDraftAction, sendBroadcastDraftTestAction } = await import("@/lib/console/actions/audiences");

test("a draft's preview: a text body as it is, a template rendered with the form's variables", {
  timeout: 120_000,
}, async () => {
  const org = await newOrg();
  signIn(org, "member");
  const text = await previewBroadcastDraftAction({ subject: "News", text: "Hello <b>all</b>" });
  expect(text).toEqual({ ok: true, data: { subject: "News", html: null, text: "Hello <b>all</b>" } });

  const template = await newTemplate(org);
  const rendered = await previewBroadcastDraftAction({ template: { id: template.id, variables: { name: "Ada" } } });
  expect(rendered.ok).toBe(true);
  if (rendered.ok) {
    expect(rendered.data.subject).toBe("Hi Ada");
    expect(rendered.data.html).toContain("Hello");
    expect(rendered.data.html).toContain("Ada");
  }
  const refused = await previewBroadcastDraftAction({
    template: { id: template.id, variables: { name: "x".repeat(41) } },
  });
  expect(refused).toMatchObject({ ok: false, error: { code: "invalid_request" } });
});

test("a draft's test goes to one address from the chosen inbox; no broadcast is queued", {
  timeout: 120_000,
}, async () => {
  const org = await newOrg();
  signIn(org, "member");
  const inbox = await newInbox(org);
  const sent = await sendBroadcastDraftTestAction({
    inboxId: inbox.id,
    to: "tester@example.com",
    subject: "Winter news",
    text: "Draft body",
  });
  expect(sent).toMatchObject({ ok: true, data: { to: ["tester@example.com"] } });
  const id = sent.ok ? sent.data.id : null;
  expect(id).toBeTruthy();
  const rows = await (await getDb())
    .select({ subject: messages.subject, to: messages.to, broadcastId: messages.broadcastId })
    .from(messages)
    .where(and(eq(messages.orgId, org.orgId), eq(messages.inboxId, inbox.id)));
  expect(rows).toEqual([{ subject: "Winter news", to: ["tester@example.com"], broadcastId: null }]);
  expect(await (await getDb()).select().from(broadcasts).where(eq(broadcasts.orgId, org.orgId))).toEqual([]);

  const noAddress = await sendBroadcastDraftTestAction({ inboxId: inbox.id, to: "", text: "x" });
  expect(noAddress).toMatchObject({ ok: false });
  if (!noAddress.ok) expect(Object.keys(noAddress.error.fields).some((k) => k.startsWith("to"))).toBe(true);
});
