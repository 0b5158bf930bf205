const UNITS: Record<string, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * Milliseconds until the moment an SDK time string names: a duration such as `1h`, `2h30m10s`,
 * `500ms`, or an ISO date (`sleepUntil`, dated timeouts). Null when it is neither.
 */
export function msUntil(value: string, now: number = Date.now()): number | null {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|w|d|h|m|s)/g)];
  if (parts.length > 0 && parts.map((p) => p[0]).join("") === value) {
    return parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] ?? "ms"] ?? 0), 0);
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
