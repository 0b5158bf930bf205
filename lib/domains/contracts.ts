import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { isoDate, uuidParam } from "@/lib/core/schemas";

export const domainSchema = z.object({
  object: z.literal("domain"),
  id: z.uuid(),
  name: z.string(),
  status: z.enum(["pending", "verified", "failed"]),
  isShared: z.boolean(),
  records: z.array(
    z.object({
      type: z.enum(["MX", "TXT"]),
      name: z.string(),
      value: z.string(),
      purpose: z.enum(["mx", "spf", "dkim", "dmarc"]),
      status: z.enum(["pending", "verified", "failed"]),
    }),
  ),
  createdAt: isoDate,
  verifiedAt: isoDate.nullable(),
});

const params = z.strictObject({ domainId: uuidParam });
const one = z.object({ domain: domainSchema });
const tag = "Domains";

export const listDomains = defineContract({
  id: "listDomains",
  method: "GET",
  path: "/v1/domains",
  access: "domains:read",
  tag,
  summary: "List domains",
  description: "Every domain of the organization, including the shared domain (verified, read-only).",
  response: z.object({ domains: z.array(domainSchema) }),
});

export const createDomain = defineContract({
  id: "createDomain",
  method: "POST",
  path: "/v1/domains",
  access: "domains:write",
  tag,
  summary: "Add a domain",
  description:
    "Adds a domain in `pending` and returns the DNS records to publish: MX, SPF, DKIM (a key generated for the domain) and DMARC.",
  body: z.strictObject({ name: z.string().min(1).max(253) }),
  example: { name: "agents.example.com" },
  errors: ["invalid_domain", "conflict"],
  response: one,
});

export const getDomain = defineContract({
  id: "getDomain",
  method: "GET",
  path: "/v1/domains/{domainId}",
  access: "domains:read",
  tag,
  summary: "Get a domain",
  params,
  response: one,
});

export const verifyDomain = defineContract({
  id: "verifyDomain",
  method: "POST",
  path: "/v1/domains/{domainId}/verify",
  access: "domains:write",
  tag,
  summary: "Recheck a domain's DNS records",
  description:
    "Looks the records up in DNS. When all four are published, `pending` → `verified` and `domain.verified` is emitted.",
  params,
  response: one,
});

export const updateDomain = defineContract({
  id: "updateDomain",
  method: "PATCH",
  path: "/v1/domains/{domainId}",
  access: "domains:write",
  tag,
  summary: "Update a domain",
  description:
    "`rotateDkimKey: true` generates a new DKIM key and selector to publish. The shared domain is read-only (403 `not_permitted`).",
  params,
  body: z.strictObject({ rotateDkimKey: z.boolean().optional() }),
  example: { rotateDkimKey: true },
  response: one,
});

export const deleteDomain = defineContract({
  id: "deleteDomain",
  method: "DELETE",
  path: "/v1/domains/{domainId}",
  access: "domains:write",
  tag,
  summary: "Delete a domain",
  description: "Only when no inbox uses it (409 otherwise). The shared domain is read-only (403 `not_permitted`).",
  params,
  errors: ["conflict"],
  response: z.object({ deleted: z.literal(true), id: z.uuid() }),
});
