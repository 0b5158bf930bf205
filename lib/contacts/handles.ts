import { z } from "zod";
import { CHANNEL_DEFINITIONS, type HandleKind } from "@/lib/channels/definitions";
import { invalidRequest } from "@/lib/core/errors";

/**
 * Handle kinds (`HANDLE_KINDS`: every channel's own, then the contact-only ones) and how each one's
 * value is checked and normalized: a channel's kind by its definition (`handle`), the others here.
 * A handle value is stored normalized (addresses lowercase, phone numbers in E.164), so the same
 * address written twice is the same handle and an inbound sender matches it exactly.
 */
export type HandleChannel = HandleKind;

const E164 = /^\+[1-9]\d{6,14}$/;

// ISO 3166-1 alpha-2 codes and their English names, from the runtime's own region data.
const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const COUNTRIES: ReadonlyMap<string, string> = (() => {
  const byKey = new Map<string, string>();
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (const a of letters)
    for (const b of letters) {
      const code = a + b;
      const name = regionNames.of(code);
      // Deprecated and private-use codes resolve to themselves or to nothing.
      if (!name || name === code || /unknown/i.test(name)) continue;
      byKey.set(code, code);
      byKey.set(name.toLowerCase(), code);
    }
  return byKey;
})();

/** `DE`, `de`, `Germany` → `DE`; null when it names no country. */
export function countryCode(value: string): string | null {
  const v = value.trim();
  return COUNTRIES.get(v.length === 2 ? v.toUpperCase() : v.toLowerCase()) ?? null;
}

const line = (max: number) => z.string().trim().min(1).max(max);
/** A `postal` handle's metadata (spec: ContactHandleInput). */
export const postalMetadataSchema = z.object({
  name: line(200),
  street: line(200),
  line2: z.string().trim().max(200).optional(),
  postalCode: line(20),
  city: line(100),
  state: z.string().trim().max(100).optional(),
  country: line(100),
});

/**
 * Checks a handle and returns its stored form. `param` is where the handle sits in the request
 * (`handles[2]` on create, "" on the handle operations), so errors name `handles[2].value` or `value`.
 */
export function normalizeHandle(
  input: { channel: HandleChannel; value: string; metadata?: Record<string, unknown> },
  param: string,
): { value: string; metadata: Record<string, unknown> } {
  const at = (field: string) => (param ? `${param}.${field}` : field);
  const value = input.value.trim();
  const metadata = input.metadata ?? {};
  const channel = CHANNEL_DEFINITIONS.find((d) => d.id === input.channel);
  if (channel) {
    const normal = channel.handle.normalize(value);
    if (normal === null) throw invalidRequest(channel.handle.hint, at("value"));
    return { value: normal, metadata };
  }
  switch (input.channel) {
    case "phone": {
      const digits = value.replace(/[\s().-]/g, "");
      if (!E164.test(digits))
        throw invalidRequest("Enter the number in international form, e.g. +4930123456.", at("value"));
      return { value: digits, metadata };
    }
    case "postal": {
      const parsed = postalMetadataSchema.safeParse(metadata);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = String(issue?.path[0] ?? "");
        const what = issue?.code === "invalid_type" && issue.input === undefined ? "is required" : "is not valid";
        throw invalidRequest(
          `A postal handle's metadata needs name, street, postalCode, city and country (line2 and state are optional): ${field || "metadata"} ${what}.`,
          at(field ? `metadata.${field}` : "metadata"),
        );
      }
      const country = countryCode(parsed.data.country);
      if (!country)
        throw invalidRequest(
          `"${parsed.data.country}" is not a country: use an ISO 3166 alpha-2 code (DE) or the country's English name.`,
          at("metadata.country"),
        );
      return { value, metadata: { ...metadata, ...parsed.data, country } };
    }
  }
  throw new Error(`handle kind ${input.channel} has no check`);
}
