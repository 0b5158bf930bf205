import { describe, expect, it } from "vitest";
import { CHANNEL_DEFINITIONS } from "@/lib/channels/definitions";
import { INBOX_MODES } from "@/db/schema/messaging";
import { channelLabel, INBOX_MODE_OPTIONS } from "@/lib/console/labels";

describe("the console's words for codes", () => {
  it("a channel's name is the registry's label", () => {
    expect(channelLabel("a2a")).toBe("Agent-to-agent");
    expect(channelLabel("email")).toBe("Email");
    for (const d of CHANNEL_DEFINITIONS) expect(channelLabel(d.id)).toBe(d.label);
    expect(channelLabel("fax")).toBe("fax"); // not a channel: the code itself
  });

  it("every inbox mode is explained", () => {
    expect(INBOX_MODE_OPTIONS.map((o) => o.value)).toEqual([...INBOX_MODES]);
    for (const o of INBOX_MODE_OPTIONS) expect(o.description.length).toBeGreaterThan(20);
  });
});
