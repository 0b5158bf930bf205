import { describe, expect, it } from "vitest";
import { type MessageFacts, messageMoment, messageTimeline } from "@/lib/console/message-status";

const outbound: MessageFacts = {
  direction: "outbound",
  status: "sent",
  deliveryStatus: "sent",
  createdAt: "2026-01-01T10:00:00.000Z",
  receivedAt: "2026-01-01T10:00:00.000Z",
  sentAt: "2026-01-01T10:00:02.000Z",
  scheduledAt: null,
};

describe("a message's one status and timeline (lib/console/message-status)", () => {
  it("an outbound message shows when it was sent, never a received time", () => {
    expect(messageMoment(outbound)).toEqual({ label: "Sent", at: outbound.sentAt });
    const t = messageTimeline(outbound, []);
    expect(t.steps.map((s) => s.label)).toEqual(["Created", "Sent"]);
    expect(t.steps.some((s) => s.label === "Received")).toBe(false);
    expect(t.pending).toBe("Sent; the provider has not reported an outcome yet.");
  });

  it("a delivered message with no stored event still ends with its outcome and says nothing is pending", () => {
    const t = messageTimeline({ ...outbound, deliveryStatus: "delivered" }, []);
    expect(t.status).toBe("delivered");
    expect(t.pending).toBeNull();
    expect(t.steps.at(-1)).toMatchObject({ reports: "delivered", tone: "green" });
  });

  it("provider events are steps in time order, their outcome once", () => {
    const t = messageTimeline({ ...outbound, deliveryStatus: "bounced" }, [
      {
        eventId: "b",
        type: "Bounce",
        recipient: "x@example.com",
        occurredAt: "2026-01-01T10:00:09.000Z",
        bounceType: "Permanent",
        bounceSubType: "General",
        diagnosticCode: "550 no such user",
      },
      { eventId: "a", type: "DeliveryDelay", recipient: "x@example.com", occurredAt: "2026-01-01T10:00:05.000Z" },
    ]);
    expect(t.steps.map((s) => s.label)).toEqual(["Created", "Sent", "Delayed", "Bounced"]);
    expect(t.steps.filter((s) => s.reports === "bounced")).toHaveLength(1);
    expect(t.steps.at(-1)?.detail).toBe("Permanent bounce (General); 550 no such user");
    expect(t.tone).toBe("red");
    expect(t.pending).toBeNull();
  });

  it("an inbound message is received, with its received time", () => {
    const inbound: MessageFacts = {
      ...outbound,
      direction: "inbound",
      status: "received",
      deliveryStatus: "received",
      sentAt: null,
    };
    expect(messageMoment(inbound)).toEqual({ label: "Received", at: inbound.receivedAt });
    expect(messageTimeline(inbound, []).steps.map((s) => s.label)).toEqual(["Received"]);
  });

  it("a scheduled message shows when it will go; a queued one when it was created", () => {
    const scheduled = {
      ...outbound,
      status: "scheduled",
      deliveryStatus: "scheduled" as const,
      sentAt: null,
      scheduledAt: "2026-02-01T00:00:00.000Z",
    };
    expect(messageMoment(scheduled)).toEqual({ label: "Scheduled for", at: scheduled.scheduledAt });
    expect(messageTimeline(scheduled, []).pending).toBe("Waiting for its scheduled time.");
    const queued = { ...outbound, status: "queued", deliveryStatus: "queued" as const, sentAt: null };
    expect(messageMoment(queued)).toEqual({ label: "Created", at: queued.createdAt });
    expect(messageTimeline(queued, []).steps.map((s) => s.label)).toEqual(["Created", "Queued"]);
  });
});
