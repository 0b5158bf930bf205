import { expect, test } from "vitest";
import { nextBatchSize } from "@/lib/webhooks/dispatcher";

test("a loop's claim size doubles after full, fast batches up to 200, and falls back to 50 after a short or slow one", () => {
  expect(nextBatchSize(50, 50, 12)).toBe(100);
  expect(nextBatchSize(100, 100, 12)).toBe(200);
  expect(nextBatchSize(200, 200, 12)).toBe(200);
  expect(nextBatchSize(200, 120, 12)).toBe(50); // the backlog is gone
  expect(nextBatchSize(200, 200, 1500)).toBe(50); // a slow endpoint: no more queued on its connections than before
  expect(nextBatchSize(50, 0, 0)).toBe(50);
});
