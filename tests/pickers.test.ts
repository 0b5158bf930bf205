import { expect, test } from "vitest";
import { SCOPES } from "@/lib/auth/scopes";
import { eventTypeGroups, scopeChoices } from "@/lib/console/pickers";
import { EMITTED_EVENT_TYPES, EVENT_TYPES } from "@/lib/events/contracts";
import { OPERATIONS } from "@/lib/registry";

/** Issue 14: the console's pickers offer only what this build can use. */

test("scopes: only those some operation requires (bundles of them, admin), grouped, with presets", () => {
  const { groups, presets } = scopeChoices();
  const offered = groups.flatMap((g) => g.scopes);
  const required = new Set(OPERATIONS.map((op) => op.contract.access).filter((a) => typeof a === "string"));
  // Capabilities that do not exist in this build are not offered (the API still accepts them).
  for (const absent of ["phone", "phone:call", "letters", "letters:send", "letters:read"])
    expect(offered).not.toContain(absent);
  // Audiences exist now (issue 15): their scopes are offered.
  expect(offered).toEqual(expect.arrayContaining(["audiences:read", "audiences:write"]));
  expect(offered.length).toBeLessThan(SCOPES.length);
  for (const s of offered) {
    if (s === "admin" || s === "messages") continue;
    expect(required.has(s), `${s} is required by some operation`).toBe(true);
  }
  expect(offered).toEqual(
    expect.arrayContaining(["admin", "messages", "messages:send", "messages:read", "inboxes:write", "webhooks:read"]),
  );
  expect(groups.find((g) => g.name === "messages")?.scopes).toEqual(["messages", "messages:read", "messages:send"]);
  expect(presets.full).toEqual(["admin"]);
  expect(presets.sending).toContain("messages:send");
  expect(presets.sending.some((s) => s.endsWith(":write"))).toBe(false);
  expect(presets.readOnly.length).toBeGreaterThan(3);
  expect(presets.readOnly.every((s) => s.endsWith(":read"))).toBe(true);
});

test("webhook event types: the emitted ones, grouped by resource", () => {
  const groups = eventTypeGroups();
  const offered = groups.flatMap((g) => g.types);
  expect(offered).toEqual([...EMITTED_EVENT_TYPES]);
  expect(offered).not.toContain("letter.status_changed");
  expect(offered).not.toContain("call.status_changed");
  expect(offered.length).toBeLessThan(EVENT_TYPES.length);
  expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(["message", "domain"]));
});
