import { describe, expect, test } from "vitest";
import { z } from "zod";
import { createApiKeyBody } from "@/lib/api-keys/contracts";
import { ApiError } from "@/lib/core/errors";
import { fieldErrors, humanFieldErrors, humanMessage, issueToError, parseOrThrow } from "@/lib/core/issues";
import { createWebhook } from "@/lib/webhooks/contracts";
import { inputRules } from "@/components/console/contract-input";
import { organizationCreateBody } from "@/lib/organizations/contracts";

/** The one zod-issue formatter: the same names on every surface, and sentences for forms. */

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) throw new Error("expected a failure");
  return parsed.error.issues;
};

describe("param names", () => {
  test("arrays index with brackets, objects with dots, record keys as they are", () => {
    const schema = z.strictObject({
      to: z.array(z.email()),
      headers: z.record(z.string(), z.string().max(3)),
      limits: z.strictObject({ perDay: z.int().max(10) }),
    });
    expect(issueToError(issuesOf(schema, { to: ["a@b.co", "bad"], headers: {}, limits: { perDay: 1 } })[0]).param).toBe(
      "to[1]",
    );
    expect(
      issueToError(issuesOf(schema, { to: [], headers: { "X-Foo": "long" }, limits: { perDay: 1 } })[0]).param,
    ).toBe("headers.X-Foo");
    expect(issueToError(issuesOf(schema, { to: [], headers: {}, limits: { perDay: 11 } })[0]).param).toBe(
      "limits.perDay",
    );
    expect(issueToError(issuesOf(schema, { to: [], headers: {}, limits: { perDay: 1 }, colour: 1 })[0]).param).toBe(
      "colour",
    );
  });

  test("the console's field errors use the same keys, every field's first message", () => {
    const fields = fieldErrors(
      issuesOf(createApiKeyBody, { name: "", scopes: ["keys:read", "nope"], allowedIps: ["1.2.3.4", "x"] }),
    );
    expect(Object.keys(fields).sort()).toEqual(["allowedIps[1]", "name", "scopes[1]"]);
  });

  test("parseOrThrow is a 400 with the first param and every field's message for forms", () => {
    try {
      parseOrThrow(organizationCreateBody, { name: " " });
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({
        status: 400,
        code: "invalid_request",
        param: "name",
        fields: { name: "Give the organization a name." },
      });
    }
  });
});

describe("humanMessage", () => {
  const first = (schema: z.ZodType, value: unknown) => issuesOf(schema, value)[0] ?? expect.unreachable();

  test("missing and empty text: Enter a …", () => {
    expect(humanMessage(first(z.object({ name: z.string() }), {}), "name")).toBe("Enter a name");
    expect(humanMessage(first(z.string().min(1), ""), "name")).toBe("Enter a name");
    expect(humanMessage(first(z.string().min(1), ""), "inbox address")).toBe("Enter an inbox address");
    expect(humanMessage(first(z.string().min(1), ""), "URL")).toBe("Enter a URL");
  });

  test("lengths and counts", () => {
    expect(humanMessage(first(z.string().max(80), "x".repeat(81)), "name")).toBe("Use 80 characters or fewer");
    expect(humanMessage(first(z.string().min(10), "short"), "password")).toBe("Use at least 10 characters");
    expect(humanMessage(first(z.array(z.string()).min(1), []), "scopes")).toBe("Pick at least one scope");
    expect(humanMessage(first(z.array(z.string()).min(1), []), { one: "event type" })).toBe(
      "Pick at least one event type",
    );
    expect(humanMessage(first(z.array(z.string()).max(2), ["a", "b", "c"]), "scopes")).toBe("Pick at most 2 scopes");
    expect(humanMessage(first(z.int().min(1), 0), "limit")).toBe("Use 1 or more");
    expect(humanMessage(first(z.int().max(100), 101), "limit")).toBe("Use 100 or less");
  });

  test("formats, choices and the schema's own messages", () => {
    expect(humanMessage(first(z.email(), "nope"), "email")).toBe("Enter a valid email address");
    expect(humanMessage(first(z.url(), "nope"), "endpoint")).toBe("Enter a valid URL");
    expect(humanMessage(first(z.enum(["owner", "admin", "member"]), "king"), "roles")).toBe(
      "Pick one of the allowed roles",
    );
    expect(humanMessage(first(z.number(), "x"), "limit")).toBe("Enter a number for limit");
    const refined = z
      .object({ a: z.string().optional() })
      .refine((v) => v.a !== undefined, { message: "Give at least one field." });
    expect(humanMessage(first(refined, {}), "changes")).toBe("Give at least one field.");
    expect(humanMessage(first(z.strictObject({}), { colour: "red" }), "form")).toBe(
      "Remove the unknown field “colour”",
    );
  });
});

describe("forms: every field's problem as a sentence, from the contract", () => {
  const thrown = (schema: z.ZodType, value: unknown): ApiError => {
    try {
      parseOrThrow(schema, value);
    } catch (err) {
      if (err instanceof ApiError) return err;
    }
    throw new Error("expected an ApiError");
  };

  test("empty required fields, lengths and lists read as sentences; the values never stay on the error", () => {
    const key = thrown(createApiKeyBody, { scopes: [] });
    expect(humanFieldErrors(key.issues ?? [])).toEqual({ name: "Enter a name", scopes: "Pick at least one scope" });
    expect(
      humanFieldErrors(thrown(createApiKeyBody, { name: "x".repeat(121), scopes: ["nope"] }).issues ?? []),
    ).toEqual({ name: "Use 120 characters or fewer", "scopes[0]": "Pick one of the allowed scopes" });
    expect(humanFieldErrors(thrown(createWebhook.body ?? z.never(), { events: [] }).issues ?? [])).toEqual({
      url: "Enter a URL",
      events: "Pick at least one event type",
    });
    expect(
      humanFieldErrors(thrown(createApiKeyBody, { scopes: ["admin"], allowedIps: ["x"] }).issues ?? []),
    ).toMatchObject({ name: "Enter a name", "allowedIps[0]": "must be an IPv4 or IPv6 address or a CIDR range" });
    // A form's own name for a field, and a schema's own sentence, win.
    expect(humanFieldErrors(thrown(organizationCreateBody, {}).issues ?? [], { name: "organization name" })).toEqual({
      name: "Enter an organization name",
    });
    expect(humanFieldErrors(thrown(organizationCreateBody, { name: " " }).issues ?? [])).toEqual({
      name: "Give the organization a name.",
    });
    const secret = thrown(z.strictObject({ password: z.string().min(10) }), { password: "hunter2" });
    expect(JSON.stringify(secret.issues)).not.toContain("hunter2");
    expect(humanFieldErrors(secret.issues ?? [])).toEqual({ password: "Use at least 10 characters" });
  });

  test("inputs take required, maxLength and type from the contract", () => {
    expect(inputRules(createApiKeyBody, "name")).toEqual({ required: true, maxLength: 120 });
    expect(inputRules(createApiKeyBody, "allowedIps")).toEqual({});
    expect(inputRules(organizationCreateBody, "name")).toEqual({ required: true, maxLength: 80 });
    expect(
      inputRules(
        z.strictObject({ email: z.email().max(254), site: z.url().nullable().optional(), pin: z.string().min(4) }),
        "email",
      ),
    ).toEqual({ required: true, maxLength: 254, type: "email" });
    expect(inputRules(z.strictObject({ site: z.url().max(2048).nullable().optional() }), "site")).toEqual({
      maxLength: 2048,
      type: "url",
    });
    expect(inputRules(z.strictObject({ pin: z.string().min(4) }), "pin")).toEqual({ required: true, minLength: 4 });
    expect(inputRules(createApiKeyBody, "nope")).toEqual({});
  });
});
