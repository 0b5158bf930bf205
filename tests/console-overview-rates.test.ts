import { describe, expect, it } from "vitest";
import { deliveryRates } from "@/lib/console/overview";

const zero = {
  queued: 0,
  scheduled: 0,
  sent: 0,
  delivered: 0,
  delayed: 0,
  bounced: 0,
  complained: 0,
  failed: 0,
  canceled: 0,
};
const thresholds = {
  throttleBounceRate: 0.05,
  quarantineBounceRate: 0.1,
  throttleComplaintRate: 0.001,
  quarantineComplaintRate: 0.005,
};

describe("the overview's bounce and complaint rates", () => {
  it("are of the messages that reached a provider, beside the reputation thresholds", () => {
    const r = deliveryRates({ ...zero, delivered: 16, bounced: 3, complained: 1, failed: 5, queued: 7 }, thresholds);
    expect(r.reached).toBe(20);
    expect(r.bounce).toEqual({ rate: 0.15, count: 3, throttleAt: 0.05, quarantineAt: 0.1 });
    expect(r.complaint).toEqual({ rate: 0.05, count: 1, throttleAt: 0.001, quarantineAt: 0.005 });
  });

  it("are unknown, not zero, when nothing reached a provider", () => {
    const r = deliveryRates({ ...zero, failed: 2 }, thresholds);
    expect(r.bounce.rate).toBeNull();
    expect(r.complaint.rate).toBeNull();
  });
});
