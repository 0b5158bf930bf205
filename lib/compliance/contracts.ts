import { z } from "zod";
import { defineContract } from "@/lib/core/contract";
import { dateTimeInput, isoDate, uuidParam } from "@/lib/core/schemas";
import { EXPORT_PAGE_MAX, MANIFEST_TYPE } from "./export";

/**
 * Compliance (spec: part 12, Audit resources): the hash-chained audit export with its signed
 * manifest. Paths and scopes: endpoints.md.
 */
const tag = "Compliance";

const signature = {
  alg: z.literal("EdDSA").nullable(),
  kid: z.string().nullable().describe("The signing key's id in `GET /v1/agents/jwks`."),
  signature: z
    .string()
    .nullable()
    .describe("Ed25519 over the RFC 8785 (JCS) form of every other field, base64url without padding."),
};

export const exportRowSchema = z.looseObject({
  id: z.uuid(),
  userId: z.uuid().describe("The organization (the specification's account)."),
  action: z.string(),
  createdAt: isoDate,
  chainSeq: z.int().describe("1-based and contiguous per organization; a gap only where an erasure removed a row."),
  prevHash: z.string().describe('The predecessor\'s rowHash; `""` for the first row.'),
  rowHash: z
    .string()
    .describe("Hex SHA-256 of prevHash followed by the JCS form of the row without prevHash and rowHash."),
  resourceType: z.string().nullable(),
  resourceId: z.string().nullable(),
  actor: z.string().nullable(),
  ip: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  agentId: z.string().nullable(),
});

export const manifestSchema = z.looseObject({
  type: z.literal(MANIFEST_TYPE),
  issuer: z.string(),
  userId: z.uuid(),
  region: z.string(),
  fromChainSeq: z.int().nullable(),
  toChainSeq: z.int().nullable(),
  rowCount: z.int(),
  headChainSeq: z.int().describe("The organization's chain head when the page was read: a full export ends at it."),
  headRowHash: z.string(),
  exportedAt: isoDate,
  from: isoDate.nullable(),
  to: isoDate.nullable(),
  cursor: z.int().nullable(),
  rowsSha256: z.string().describe("Hex SHA-256 of the JCS form of the page's `rows`."),
  ...signature,
});

export const exportAuditLogs = defineContract({
  id: "exportAuditLogs",
  method: "GET",
  path: "/v1/audit-logs/export",
  access: "compliance:read",
  tag,
  summary: "Export the audit chain",
  description: `The organization's hash-chained audit rows in chain order, up to ${EXPORT_PAGE_MAX} per page, with a signed manifest (a SignedArtifact verifiable against \`GET /v1/agents/jwks\`). \`from\`/\`to\` bound \`createdAt\` (inclusive); \`cursor\` is the previous page's \`pagination.nextCursor\` (rows with a greater \`chainSeq\`). \`format\` \`ndjson\` is reserved: only JSON is emitted. Verify offline with \`npm run svc -- compliance verify <file>\`.`,
  query: z.strictObject({
    from: dateTimeInput().optional(),
    to: dateTimeInput().optional(),
    cursor: z
      .string()
      .regex(/^\d{1,15}$/, "A chainSeq: the previous page's pagination.nextCursor.")
      .transform(Number)
      .optional(),
    limit: z
      .string()
      .regex(/^\d{1,4}$/)
      .transform(Number)
      .pipe(z.int().min(1).max(EXPORT_PAGE_MAX))
      .optional()
      .describe(`Rows per page, 1..${EXPORT_PAGE_MAX} (default ${EXPORT_PAGE_MAX}).`),
    format: z.enum(["json", "ndjson"]).default("json"),
  }),
  response: z.object({
    rows: z.array(exportRowSchema),
    manifest: manifestSchema,
    pagination: z.object({ nextCursor: z.int().nullable() }),
  }),
});

export const subprocessorSchema = z.object({
  name: z.string(),
  purpose: z.string(),
  location: z
    .string()
    .describe("Where it processes data: a region or country code, `unknown` when the configuration does not say."),
  jurisdiction: z
    .string()
    .nullable()
    .describe("ISO 3166 country of the company's parent; `US` means CLOUD Act exposure."),
  url: z.string().nullable(),
  source: z
    .enum(["configuration", "declared"])
    .describe("`configuration`: implied by this deployment's settings; `declared`: the operator's SUBPROCESSORS."),
});

export const getResidency = defineContract({
  id: "getResidency",
  method: "GET",
  path: "/v1/compliance/residency",
  access: "compliance:read",
  tag,
  summary: "Residency posture",
  description:
    "The deployment's residency posture from its configuration: region, the subprocessors its settings imply plus those the operator declares, and `subprocessorListVersion`, which only increases (a change emits `subprocessor.changed`). `noUsEgress` is true when no subprocessor is in, or under the jurisdiction of, the US; webhook endpoints are chosen by you and not counted.",
  response: z.object({
    type: z.literal("svc.residency.v1"),
    primaryRegion: z.string(),
    dataResidency: z.string(),
    noUsEgress: z.boolean(),
    subprocessors: z.array(subprocessorSchema),
    subprocessorListVersion: z.int().min(1),
    subprocessorListUpdatedAt: isoDate.nullable(),
    controllerParent: z.string().nullable(),
    cloudActExposed: z.boolean(),
    enforcement: z.object({
      database: z.enum(["embedded", "postgresql"]),
      storage: z.enum(["filesystem", "s3"]),
      mailTransport: z.enum(["embedded", "smtp", "ses"]),
      workflows: z.enum(["embedded", "inngest"]),
      outboundHttp: z.literal("guarded").describe("Every outbound request goes through the SSRF guard."),
    }),
    checkedAt: isoDate,
  }),
});

export const complianceJobSchema = z.object({
  object: z.literal("compliance_job"),
  id: z.uuid(),
  kind: z.enum(["erasure", "purge"]),
  status: z.enum(["pending", "running", "completed", "failed"]),
  subject: z.object({
    address: z.string().nullable().describe("While the job runs; null once it completed (only the hash is kept)."),
    addressSha256: z
      .string()
      .nullable()
      .describe("Hex SHA-256 of the erased address(es), lowercase, sorted, joined by newlines."),
    contactId: z.uuid().nullable(),
    inboxId: z.uuid().nullable(),
  }),
  counts: z
    .record(z.string(), z.int())
    .describe(
      "What was removed so far: messages, attachments, threads, contactHandles, contacts, suppressions, storedResponses, auditRows.",
    ),
  certificate: z
    .looseObject({
      type: z.literal("svc.deletion_certificate.v1"),
      alg: z.literal("EdDSA").nullable(),
      kid: z.string().nullable(),
      signature: z.string().nullable(),
    })
    .nullable()
    .describe(
      "When completed: the signed deletion certificate (a SignedArtifact verifiable against `GET /v1/agents/jwks`): what was erased (as a hash), counts, times, the job's audit chain positions (`requestedChainSeq`, `completedChainSeq`) and the positions of audit rows it removed (`erasedAuditRows`, which `svc compliance verify --certificate` uses to explain the gaps).",
    ),
  error: z.string().nullable(),
  createdAt: isoDate,
  completedAt: isoDate.nullable(),
});
const oneJob = z.object({ job: complianceJobSchema });
const jobParams = z.strictObject({ jobId: uuidParam });

export const requestErasure = defineContract({
  id: "requestErasure",
  method: "POST",
  path: "/v1/compliance/erasures",
  access: "compliance:write",
  tag,
  summary: "Erase a data subject",
  description:
    "Starts an irreversible erasure job for an email address or a contact (exactly one): every message of the organization from or to the address (whole messages, with attachments and their stored bytes), emptied threads, the messages' ledger event data, the address's contact handles (a contact erasure deletes the contact), its complaint suppression, stored idempotent responses naming it, and audit rows naming it (the audit chain shows the gap; the certificate lists the positions). Poll `GET /v1/compliance/erasures/{jobId}` for the signed deletion certificate; `compliance.erasure.completed` is emitted when done.",
  body: z.strictObject({ address: z.email().max(320).optional(), contactId: z.uuid().optional() }),
  example: { address: "ada@example.com" },
  successStatus: 202,
  errors: ["resource_not_found"],
  response: oneJob,
});

export const getErasure = defineContract({
  id: "getErasure",
  method: "GET",
  path: "/v1/compliance/erasures/{jobId}",
  access: "compliance:read",
  tag,
  summary: "Get an erasure job",
  description: "With the signed deletion certificate once `completed`.",
  params: jobParams,
  response: oneJob,
});

export const requestPurge = defineContract({
  id: "requestPurge",
  method: "POST",
  path: "/v1/compliance/purges",
  access: "compliance:write",
  tag,
  summary: "Purge an inbox",
  description:
    "Starts an irreversible purge job: every message and thread of the inbox, attachments and their stored bytes, and the data of the inbox's ledger events. The inbox itself stays. Poll `GET /v1/compliance/purges/{jobId}` for the signed deletion certificate; `compliance.erasure.completed` is emitted when done.",
  body: z.strictObject({ inboxId: z.uuid() }),
  example: { inboxId: "01930000-0000-7000-8000-000000000000" },
  successStatus: 202,
  errors: ["resource_not_found"],
  response: oneJob,
});

export const getPurge = defineContract({
  id: "getPurge",
  method: "GET",
  path: "/v1/compliance/purges/{jobId}",
  access: "compliance:read",
  tag,
  summary: "Get a purge job",
  description: "With the signed deletion certificate once `completed`.",
  params: jobParams,
  response: oneJob,
});
