import { describe, expect, it } from "vitest";
import { webhookHealth } from "@/lib/console/webhook-health";

const failed = {
  status: "failed",
  error: "connect ECONNREFUSED",
  responseStatus: null,
  createdAt: "2026-01-02T00:00:00Z",
};
const http500 = { status: "failed", error: null, responseStatus: 500, createdAt: "2026-01-01T00:00:00Z" };
const ok = { status: "succeeded", error: null, responseStatus: 200, createdAt: "2026-01-03T00:00:00Z" };

describe("a webhook's health in words", () => {
  it("a run of failures before the breaker opens is a warning with the count, what is left and the last error", () => {
    const h = webhookHealth({ autoPaused: false, consecutiveFailures: 13 }, 20, [failed, http500]);
    expect(h.state).toBe("failing");
    expect(h.text).toContain("13 deliveries failed in a row");
    expect(h.text).toContain("after 7 more failures");
    expect(h.text).not.toContain("Deliveries flow");
    expect(h.lastError).toEqual({ text: "connect ECONNREFUSED", at: failed.createdAt });
  });

  it("one failure, the last before the threshold, an HTTP status as the error", () => {
    const h = webhookHealth({ autoPaused: false, consecutiveFailures: 1 }, 2, [ok, http500]);
    expect(h.text).toContain("1 delivery failed in a row");
    expect(h.text).toContain("after 1 more failure.");
    expect(h.lastError?.text).toBe("the endpoint answered HTTP 500");
    expect(webhookHealth({ autoPaused: false, consecutiveFailures: 5 }, 5).text).toContain("at the next failure");
  });

  it("open when the breaker paused it; healthy with no failures in a row", () => {
    expect(webhookHealth({ autoPaused: true, consecutiveFailures: 20 }, 20, [failed]).state).toBe("open");
    const healthy = webhookHealth({ autoPaused: false, consecutiveFailures: 0 }, 20, [failed]);
    expect(healthy).toMatchObject({ state: "healthy", lastError: null });
  });
});
