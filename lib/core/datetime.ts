import { z } from "zod";

/**
 * An ISO 8601 date-time a request may carry: one PostgreSQL can store. The ISO pattern allows the
 * years 0000–9999 and any offset, but PostgreSQL has no year 0 (`0000-…`, or `0001-01-01T00:00+01:00`
 * in UTC) and a JS date past 9999 serializes as `+010000-…`, which it does not parse: outside
 * 0001–9999 in UTC is a 400, not a failed query.
 */
export const dateTimeInput = (options: { offset?: boolean } = { offset: true }) =>
  z.iso.datetime(options).refine((s) => {
    const year = new Date(s).getUTCFullYear();
    return year >= 1 && year <= 9999;
  }, "The date must be between the years 0001 and 9999 (UTC).");
