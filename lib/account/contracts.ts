import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isoDate } from "@/lib/core/schemas";

/** Console passwords: at least this long, at most this long (Argon2id hashes them). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const organizationSchema = z.object({
  id: z.string().nullable(),
  name: z.string(),
  slug: z.string(),
  vanitySlug: z.string().nullable(),
  role: z.enum(["owner", "admin", "member"]).nullable(),
});

const storageSchema = z.object({
  usedBytes: z.int(),
  limitBytes: z.int(),
  remainingBytes: z.int(),
  breakdown: z.object({
    mailBodyBytes: z.int(),
    attachmentBytes: z.int(),
    fileBytes: z.int(),
    expiringFileBytes: z.int(),
    activeFileObjects: z.int(),
  }),
  /** Where stored bytes live. */
  backend: z.enum(["filesystem", "s3"]),
  /** The malware scanner in use: clamd, or the built-in scanner (EICAR and a SHA-256 block list). */
  scanner: z.object({ kind: z.enum(["clamd", "builtin"]), version: z.string().nullable(), detail: z.string() }),
});

export const whoamiSchema = z.object({
  userId: z.string(),
  projectId: z.string().nullable(),
  apiKey: z.object({ id: z.string(), scopes: z.array(z.string()) }),
  plan: z.string(),
  limits: z.object({
    requestsPerMinute: z.int(),
    apiKeys: z.int().nullable(),
    allowedIpsPerKey: z.int(),
    idempotencyKeyHours: z.int(),
    maxRequestBytes: z.int(),
  }),
  usage: z.object({ activeApiKeys: z.int(), requestsThisMinute: z.int() }),
  period: z.object({ start: isoDate, end: isoDate }),
  notes: z.object({ selfHosted: z.boolean(), rateLimitScope: z.string(), sharedDomain: z.string() }),
  storage: storageSchema,
  organization: z.object({ id: z.string().nullable(), role: z.enum(["owner", "admin", "member"]).nullable() }),
  organizations: z.array(organizationSchema),
  letters: z.object({ printMode: z.enum(["test", "live"]) }),
});
export type Whoami = z.infer<typeof whoamiSchema>;

export const getWhoami = defineContract({
  id: "getWhoami",
  method: "GET",
  path: "/v1/whoami",
  access: "key",
  tag: "Account",
  summary: "Who am I",
  description:
    "Introspects the calling key: its user, organization, scopes, limits and usage. Works for any valid key regardless of scopes.",
  response: whoamiSchema,
});

// Console accounts: request schemas of sign-up, sign-in and the password operation.

export const signUpBody = z.strictObject({
  name: z.string().trim().max(80).optional(),
  email: z.email("Enter a valid email address.").max(254),
  password: z.string().min(PASSWORD_MIN, `Use at least ${PASSWORD_MIN} characters.`).max(PASSWORD_MAX),
});

export const signInBody = z.strictObject({
  email: z.email("Enter a valid email address.").max(254),
  password: z.string().min(1, "Enter your password.").max(PASSWORD_MAX),
});

export const passwordChangeBody = z.strictObject({
  currentPassword: z.string().max(PASSWORD_MAX).optional(),
  newPassword: z.string().min(PASSWORD_MIN, `Use at least ${PASSWORD_MIN} characters.`).max(PASSWORD_MAX),
});

export const magicLinkBody = z.strictObject({ email: z.email("Enter a valid email address.").max(254) });

export const setPassword = defineContract({
  id: "setPassword",
  method: "PUT",
  path: "/v1/me/password",
  access: "session",
  tag: "Account",
  summary: "Set or change my password",
  description: "Changing an existing password needs the current one; setting the first one needs only the session.",
  body: passwordChangeBody,
  example: { currentPassword: "the old one", newPassword: "a new long password" },
  response: z.null(),
});
