import { describe, expect, it } from "vitest";
import { eventSummary, shortId } from "@/lib/console/event-summary";

describe("the event tail's words", () => {
  it("ids of the same second are told apart by their end, never their first 8 characters", () => {
    const a = "019ac2f1-7b3e-7c11-9a2b-3c4d5e6f7a81";
    const b = "019ac2f1-7b3e-7d22-8f00-112233445566";
    expect(a.slice(0, 8)).toBe(b.slice(0, 8));
    expect(shortId(a)).toBe("…5e6f7a81");
    expect(shortId(b)).not.toBe(shortId(a));
    expect(shortId("agt_123")).toBe("agt_123");
    expect(shortId("evt_J2TljjeOBlfHfGGn-DW04g")).toBe("…Gn-DW04g");
  });

  it("a call's status change: the callee, the status and its reason", () => {
    expect(eventSummary("call.status_changed", { to: "+13125550123", status: "ringing", reason: null })).toEqual({
      title: "call to +13125550123",
      detail: "ringing",
    });
    expect(
      eventSummary("call.status_changed", { to: "+12025550191", status: "busy", reason: "The line was busy." }).detail,
    ).toBe("busy: The line was busy.");
  });

  it("a message: its subject and counterpart", () => {
    const out = {
      direction: "outbound",
      from: { address: "alice@svc.localhost", name: null },
      to: ["bob@example.com", "carol@example.com"],
      subject: "Hello Bob",
    };
    expect(eventSummary("message.sent", out)).toEqual({
      title: "“Hello Bob”",
      detail: "to bob@example.com and 1 more",
    });
    expect(eventSummary("message.bounced", { ...out, recipient: "carol@example.com" }).detail).toBe(
      "to carol@example.com",
    );
    expect(eventSummary("message.received", { ...out, direction: "inbound" }).detail).toBe("from alice@svc.localhost");
    expect(eventSummary("message.sent", { ...out, subject: null }).title).toBe("(no subject)");
  });

  it("a domain's name, a file's name, a budget's scope, a webhook's label", () => {
    expect(eventSummary("domain.verified", { domainId: "x", name: "mail.example.com" }).title).toBe("mail.example.com");
    expect(eventSummary("object.scanned", { filename: "a.pdf", scanStatus: "clean" })).toEqual({
      title: "a.pdf",
      detail: "scan: clean",
    });
    expect(eventSummary("budget.tripped", { budget: { scope: "account" }, limit: "maxSendsPerDay" })).toEqual({
      title: "the account's budget",
      detail: "recipients per day reached",
    });
    expect(eventSummary("webhook.test", { label: "CRM" }).title).toBe("CRM");
    expect(eventSummary("subprocessor.changed", {})).toEqual({ title: null, detail: null });
  });
});
