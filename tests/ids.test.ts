import { expect, test } from "vitest";
import { z } from "zod";
import { uuidv7 } from "@/db/ids";

test("uuidv7 ids are valid v7 UUIDs and strictly increase within a process, even in one millisecond", () => {
  const ids = Array.from({ length: 5000 }, () => uuidv7(1_700_000_000_000));
  for (const id of ids.slice(0, 50)) expect(z.uuid({ version: "v7" }).safeParse(id).success).toBe(true);
  const sorted = [...ids].sort();
  expect(sorted).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
});
