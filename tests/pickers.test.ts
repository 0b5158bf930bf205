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
  // Letters exist now (issue 25): the letters bundle and its scopes are offered.
  expect(offered).toEqual(expect.arrayContaining(["letters", "letters:read", "letters:send"]));
  // Calls exist now (issue 24): the phone bundle and phone:call are offered.
  expect(offered).toEqual(expect.arrayContaining(["phone", "phone:call", "phone:read", "phone:write"]));
  // Audiences exist now (issue 15): their scopes are offered.
  expect(offered).toEqual(expect.arrayContaining(["audiences:read", "audiences:write"]));
  expect(offered.length).toBeLessThanOrEqual(SCOPES.length);
  for (const s of offered) {
    if (s === "admin" || s === "messages" || s === "phone" || s === "letters") continue;
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
  expect(offered).toContain("letter.status_changed");
  expect(offered).toContain("call.status_changed");
  // Every offered type is a declared one (with letters and waits, every declared type is now emitted).
  expect([...EVENT_TYPES]).toEqual(expect.arrayContaining(offered));
  expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(["message", "domain"]));
});
