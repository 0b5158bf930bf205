import { z } from "zod";
import { LETTER_STATUSES } from "@/db/schema/letters";
import { defineContract } from "@/lib/core/contract";
import { paginationQuery, paginationSchema } from "@/lib/core/pagination";
import { uuidParam } from "@/lib/core/schemas";
import { MAX_PAGES, MAX_PDF_BYTES } from "./geometry";
import { paymentOut, paymentSchema } from "./payment";

const tag = "Letters";

/** The statuses are the table's (one list, db/schema/letters.ts). */
export type LetterStatus = (typeof LETTER_STATUSES)[number];

const line = z.string().trim().min(1).max(200);
const optionalLine = line.nullable().optional();

/** A postal address (the spec's PostalAddress): `street` or `poBox`, an ISO 3166-1 alpha-2 `country`. */
export const postalAddressSchema = z
  .strictObject({
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, "An ISO 3166-1 alpha-2 country code, e.g. DE.")
      .transform((c) => c.toUpperCase()),
    name: optionalLine,
    company: optionalLine,
    street: optionalLine,
    houseNumber: z.string().trim().min(1).max(20).nullable().optional(),
    poBox: optionalLine,
    addressLine2: optionalLine,
    postalCode: z.string().trim().min(1).max(20).nullable().optional(),
    city: optionalLine,
  })
  .superRefine((a, ctx) => {
    if (!a.street && !a.poBox)
      ctx.addIssue({ code: "custom", path: ["street"], message: "Give street (with houseNumber) or poBox." });
    if (!a.name && !a.company) ctx.addIssue({ code: "custom", path: ["name"], message: "Give name or company." });
    if (!a.city) ctx.addIssue({ code: "custom", path: ["city"], message: "Give city." });
  });
export type PostalAddress = z.infer<typeof postalAddressSchema>;

const postalAddressOut = z.object({
  country: z.string(),
  name: z.string().nullable(),
  company: z.string().nullable(),
  street: z.string().nullable(),
  houseNumber: z.string().nullable(),
  poBox: z.string().nullable(),
  addressLine2: z.string().nullable(),
  postalCode: z.string().nullable(),
  city: z.string().nullable(),
});

export const printOptionsSchema = z.strictObject({
  color: z.boolean().default(false).describe("Colour printing (priced per page)."),
  sides: z.enum(["simplex", "duplex"]).default("simplex"),
  addressPlacement: z
    .enum(["left", "right"])
    .default("left")
    .describe("Which DIN 5008 window the recipient's address is printed in (see requirements)."),
});
export type PrintOptions = z.infer<typeof printOptionsSchema>;
const printDefaults = { color: false, sides: "simplex", addressPlacement: "left" } as const;

const delivery = z
  .enum(["standard", "registered"])
  .default("standard")
  .describe(
    "`registered` uses the registered geometry (recipient block y = 67–90 mm, carrier label y = 50–67 mm) and is domestic only (the print centre's country).",
  );

const pdfBase64 = z
  .base64()
  .min(8)
  .max(Math.ceil(MAX_PDF_BYTES / 3) * 4 + 4)
  .describe(`The PDF, base64 (at most ${MAX_PDF_BYTES / 1024 / 1024} MB decoded).`);

/** A stored object (any bucket of the organization, finalized and scanned clean) holding the PDF. */
const fileSource = z
  .strictObject({ objectId: z.uuid().describe("A bucket object of the organization: finalized, scanned clean.") })
  .describe(`A PDF stored in one of the organization's buckets (at most ${MAX_PDF_BYTES / 1024 / 1024} MB).`);

const maxPages = z
  .int()
  .min(1)
  .max(MAX_PAGES)
  .optional()
  .describe("Fail the `page_count` check above this many pages.");

/** A blank A4 page: a valid document source (the checks then say what is missing). */
const BLANK_A4 =
  "JVBERi0xLjcKJYGBgYEKCjEgMCBvYmoKPDwKL1R5cGUgL1BhZ2VzCi9LaWRzIFsgMyAwIFIgXQovQ291bnQgMQo+PgplbmRvYmoKCjIgMCBvYmoKPDwKL1R5cGUgL0NhdGFsb2cKL1BhZ2VzIDEgMCBSCj4+CmVuZG9iagoKMyAwIG9iago8PAovVHlwZSAvUGFnZQovUGFyZW50IDEgMCBSCi9SZXNvdXJjZXMgPDwKPj4KL01lZGlhQm94IFsgMCAwIDU5NS4yOCA4NDEuODkgXQo+PgplbmRvYmoKCnhyZWYKMCA0CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAwMDAwMDAxNiAwMDAwMCBuIAowMDAwMDAwMDc2IDAwMDAwIG4gCjAwMDAwMDAxMjYgMDAwMDAgbiAKCnRyYWlsZXIKPDwKL1NpemUgNAovUm9vdCAyIDAgUgo+PgoKc3RhcnR4cmVmCjIyMwolJUVPRg==";
const exampleTo = {
  name: "Erika Mustermann",
  street: "Hauptstraße",
  houseNumber: "5",
  postalCode: "10115",
  city: "Berlin",
  country: "DE",
};
const exampleFrom = {
  company: "Beispiel GmbH",
  street: "Marktplatz",
  houseNumber: "1",
  postalCode: "80331",
  city: "München",
  country: "DE",
};

const boxSchema = z
  .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
  .describe("Millimetres from the page's top-left corner.");

export const CHECK_IDS = [
  "page_size",
  "page_count",
  "fonts_embedded",
  "address_window",
  "address_match",
  "franking_zone",
  "edge_clearance",
  "registered_domestic",
  "payment_slip",
] as const;

export const verificationCheckSchema = z.object({
  id: z.enum(CHECK_IDS),
  status: z.enum(["pass", "warn", "fail", "skipped"]),
  message: z.string(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  page: z.int().optional().describe("The page the check found the problem on (1-based)."),
  box: boxSchema.optional().describe("The offending area, mm from the page's top-left corner."),
});
export type VerificationCheck = z.infer<typeof verificationCheckSchema>;

const pageSizeSchema = z.object({ widthMm: z.number(), heightMm: z.number(), format: z.string().nullable() });

export const letterVerificationSchema = z.object({
  object: z.literal("letter_verification"),
  valid: z.boolean().describe("True when no check failed (warnings may remain)."),
  checks: z.array(verificationCheckSchema),
  pageCount: z.int(),
  pageSize: pageSizeSchema.describe("Within 1 mm of A4 reported as 210 × 297, format A4."),
  measuredPageSize: pageSizeSchema.describe("Page 1 as measured."),
  addressPlacement: z.enum(["left", "right"]).nullable(),
  addressLines: z.array(z.string()).describe("The text found in the address window, line by line."),
  summary: z.string(),
  failedChecks: z.array(z.enum(CHECK_IDS)),
  agentHint: z.string().describe("One sentence: what to change (or that the letter is ready)."),
});
export type LetterVerification = z.infer<typeof letterVerificationSchema>;

const templateSource = {
  templateId: z
    .uuid()
    .optional()
    .describe("A letter template of the organization (needs `to`), rendered with `templateData`."),
  templateData: z.record(z.string(), z.unknown()).optional().describe("Values of the template's `{{placeholders}}`."),
  payment: paymentSchema.optional(),
};

export const letterVerifyBody = z.strictObject({
  pdfBase64: pdfBase64.optional(),
  file: fileSource.optional(),
  ...templateSource,
  from: postalAddressSchema.optional().describe("Template path: the sender's address (`{{from.*}}`)."),
  to: postalAddressSchema.optional().describe("Enables the `address_match` check (and `registered_domestic`)."),
  print: printOptionsSchema.default(printDefaults),
  maxPages,
  delivery,
});

export const verifyLetter = defineContract({
  id: "verifyLetter",
  method: "POST",
  path: "/v1/letters/verify",
  access: "letters:read",
  tag,
  summary: "Verify a letter's PDF",
  description:
    "Exactly one document source: `pdfBase64`, `file` (a clean bucket object) or `templateId` (with `to` and `templateData`). Measures the PDF itself (page boxes, text positions and fonts) against the requirements (`GET /v1/letters/requirements`): `page_size`, `page_count`, `fonts_embedded`, `address_window`, `address_match` (with `to`), `franking_zone`, `edge_clearance`, `registered_domestic`, `payment_slip` (with `payment`, template path only: the slip's IBAN and amount found on the last page). Each check is `pass`, `warn`, `fail` or `skipped` with `expected`, `actual` and, for placement checks, the offending `box` in millimetres; `valid` is true when no check failed. Sends run the same checks first. Changes nothing.",
  body: letterVerifyBody,
  maxBodyBytes: 6 * 1024 * 1024,
  idempotent: false,
  example: { pdfBase64: BLANK_A4, to: exampleTo },
  errors: [
    "unprocessable",
    "resource_not_found",
    "payload_too_large",
    "provider_unavailable",
    "conflict",
    "not_permitted",
  ],
  response: letterVerificationSchema,
});

export const letterPriceSchema = z.object({
  object: z.literal("letter_price"),
  priceCents: z.int().describe("What a send holds under the account budget's `maxSpendPerDayCents`."),
  currency: z.literal("usd"),
  zone: z.enum(["domestic", "eu", "world"]),
  sheets: z.int(),
  lines: z.array(z.object({ item: z.string(), cents: z.int() })),
});

export const priceLetter = defineContract({
  id: "priceLetter",
  method: "POST",
  path: "/v1/letters/price",
  access: "letters:read",
  tag,
  summary: "Price a letter",
  description:
    "Integer cents from the deployment's price table (pages, colour, duplex, destination zone, registered): the same amount `POST /v1/letters` holds under the account budget. Changes nothing.",
  body: z.strictObject({
    pageCount: z.int().min(1).max(MAX_PAGES),
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, "An ISO 3166-1 alpha-2 country code, e.g. DE.")
      .transform((c) => c.toUpperCase()),
    print: printOptionsSchema.default(printDefaults),
    delivery,
  }),
  idempotent: false,
  example: { pageCount: 2, country: "DE" },
  response: letterPriceSchema,
});

const requirementsSchema = z.object({
  object: z.literal("letter_requirements"),
  version: z.string(),
  printMode: z.enum(["test", "live"]),
  printModeNote: z.string(),
  testMode: z.object({ endState: z.enum(["delivered", "undeliverable"]), stepMs: z.int() }),
  destinations: z.object({
    supportedCountries: z.union([z.literal("any"), z.array(z.string())]),
    printCentreCountry: z.string(),
    registered: z.object({ domesticOnly: z.boolean(), countries: z.array(z.string()) }),
  }),
  summary: z.string(),
  pageSetup: z.object({
    widthMm: z.number(),
    heightMm: z.number(),
    format: z.string(),
    toleranceMm: z.number(),
    maxPages: z.int(),
    maxPdfBytes: z.int(),
  }),
  addressWindow: z.object({
    left: boxSchema,
    right: boxSchema,
    registered: z.object({
      recipientBlock: z.object({ left: boxSchema, right: boxSchema }),
      carrierLabel: z.object({ left: boxSchema, right: boxSchema }),
    }),
    note: z.string(),
  }),
  keepOuts: z.array(
    z.object({
      id: z.string(),
      page: z.string(),
      box: boxSchema.optional(),
      marginMm: z.number().optional(),
      note: z.string(),
    }),
  ),
  bodyLayout: z.object({
    bodyStartsAtMm: z.number(),
    marginLeftMm: z.number(),
    marginRightMm: z.number(),
    marginBottomMm: z.number(),
    note: z.string(),
  }),
  pdfRules: z.array(z.string()),
  workflow: z.array(z.object({ step: z.string(), method: z.string(), path: z.string(), note: z.string() })),
  starterTemplates: z.array(
    z.object({ name: z.string(), description: z.string(), variables: z.array(z.string()), html: z.string() }),
  ),
  endpoints: z.record(z.string(), z.string()),
  agentHint: z.string(),
  mcpTools: z.record(z.string(), z.string()),
});

export const getLetterRequirements = defineContract({
  id: "getLetterRequirements",
  method: "GET",
  path: "/v1/letters/requirements",
  access: "letters:read",
  tag,
  summary: "Letter requirements",
  description:
    "Everything a letter must satisfy, from the same geometry verification measures against: A4, the DIN 5008 address window (`left`/`right`, and the `registered` geometry), keep-outs (franking zone, edge clearance), PDF rules, the workflow (verify → price → dryRun → send), starter templates and the print mode (`test`: letters are never printed).",
  response: requirementsSchema,
});

// ---- letters ----------------------------------------------------------------------------------

export const letterSchema = z.object({
  object: z.literal("letter"),
  id: z.uuid(),
  status: z.enum(LETTER_STATUSES),
  testMode: z.boolean().describe("Test letters are never printed nor charged (their hold is released)."),
  to: postalAddressOut,
  from: postalAddressOut.nullable(),
  delivery: z.enum(["standard", "registered"]),
  print: z.object({
    color: z.boolean(),
    sides: z.enum(["simplex", "duplex"]),
    addressPlacement: z.enum(["left", "right"]),
  }),
  pageCount: z.int(),
  sizeBytes: z.int(),
  priceCents: z.int(),
  currency: z.literal("usd"),
  description: z.string().nullable(),
  payment: paymentOut.nullable().describe("The payment slip printed as the letter's last page, if any."),
  metadata: z.record(z.string(), z.unknown()),
  timeline: z
    .array(z.object({ status: z.enum(LETTER_STATUSES), at: z.string(), reason: z.string().nullable() }))
    .describe("Every status the letter took, oldest first (each also a `letter.status_changed` event)."),
  expectedDeliveryDate: z.string().describe("YYYY-MM-DD."),
  nextStepAt: z.string().nullable().describe("Test mode: when the simulated print centre moves the letter next."),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Letter = z.infer<typeof letterSchema>;

const dryRunSchema = z.object({
  object: z.literal("letter_dry_run"),
  dryRun: z.literal(true),
  valid: z.boolean(),
  priceCents: z.int(),
  currency: z.literal("usd"),
  pageCount: z.int(),
  printMode: z.enum(["test", "live"]),
  verification: letterVerificationSchema,
});

export const sendLetterBody = z.strictObject({
  to: postalAddressSchema,
  from: postalAddressSchema.optional(),
  pdfBase64: pdfBase64.optional(),
  file: fileSource.optional(),
  ...templateSource,
  print: printOptionsSchema.default(printDefaults),
  delivery,
  maxPages,
  description: z.string().trim().min(1).max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  dryRun: z.boolean().default(false).describe("Verify and price only: nothing is stored, held or printed."),
});

export const sendLetter = defineContract({
  id: "sendLetter",
  method: "POST",
  path: "/v1/letters",
  access: "letters:send",
  tag,
  summary: "Send a letter",
  description:
    "Verifies the PDF first (a failing check is 422 with `param` naming the field at fault: `pdfBase64`, `to.street`, `delivery`, …), holds its price under the account budget's `maxSpendPerDayCents` (429 `spend_cap_reached`), then records the letter `queued` and hands it to the print provider after the commit. In test mode (`printMode` `test`) the simulated print centre moves it `queued → processing → printable → submitted → in_transit → delivered` (or the configured end state) every `LETTER_SIM_STEP_MS`, each a `letter.status_changed` event (ledger partition `letter:<id>`, webhooks); test letters are never printed and their hold is released at the end. `dryRun: true` answers the verification and price without storing anything.",
  body: sendLetterBody,
  maxBodyBytes: 6 * 1024 * 1024,
  example: { to: exampleTo, from: exampleFrom, pdfBase64: BLANK_A4, dryRun: true },
  successStatus: 201,
  errors: [
    "unprocessable",
    "spend_cap_reached",
    "provider_unavailable",
    "resource_not_found",
    "payload_too_large",
    "conflict",
    "not_permitted",
  ],
  response: z.union([letterSchema, dryRunSchema]),
});

// ---- batches ----------------------------------------------------------------------------------

export const MAX_BATCH_RECIPIENTS = 1000;

export const batchRecipientSchema = z.strictObject({
  to: postalAddressSchema,
  templateData: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("This recipient's values of the template's `{{placeholders}}`."),
  payment: paymentSchema.optional().describe("This recipient's payment slip (its own amount and reference)."),
});

export const sendLetterBatchBody = z.strictObject({
  templateId: z.uuid().describe("An active letter template of the organization, rendered once per recipient."),
  from: postalAddressSchema.optional(),
  recipients: z
    .array(batchRecipientSchema)
    .min(1)
    .max(MAX_BATCH_RECIPIENTS)
    .describe(`1 to ${MAX_BATCH_RECIPIENTS} BatchRecipients: one letter each.`),
  print: printOptionsSchema.default(printDefaults),
  delivery,
  maxPages,
  description: z.string().trim().min(1).max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const letterBatchItemSchema = z.object({
  index: z.int().describe("The recipient's position in `recipients` (0-based)."),
  status: z
    .enum(["pending", "created", "failed"])
    .describe("`created`: the letter was recorded (see `letterId`); `failed`: see `error`."),
  letterId: z.uuid().nullable().describe("The letter made for this recipient, once `created`."),
  error: z
    .object({ code: z.string(), message: z.string(), param: z.string().nullable() })
    .nullable()
    .describe("Why no letter was made: the same code, message and `param` a single send would answer."),
});

export const letterBatchSchema = z.object({
  object: z.literal("letter_batch"),
  id: z.uuid(),
  status: z.enum(["processing", "completed"]).describe("`completed` once every recipient is `created` or `failed`."),
  templateId: z.uuid(),
  total: z.int(),
  created: z.int(),
  failed: z.int(),
  pending: z.int(),
  items: z.array(letterBatchItemSchema).describe("One per recipient, in request order."),
  createdAt: z.string(),
});

export const sendLetterBatch = defineContract({
  id: "sendLetterBatch",
  method: "POST",
  path: "/v1/letters/batch",
  access: "letters:send",
  tag,
  summary: "Send a batch of letters",
  description: `One template to 1..${MAX_BATCH_RECIPIENTS} recipients, one letter each, made in the background by the fan-out (202 with the batch's progress record; follow it at \`GET /v1/letters/batch/{batchId}\`). Each recipient's letter is rendered, verified and priced like a single send and its price held under \`maxSpendPerDayCents\`; a recipient whose letter fails (a failing check, the spend cap) is reported in its item with the code, message and \`param\` a single send would answer, and the others go on. With an \`Idempotency-Key\` a repeated request answers the same batch; a resumed batch makes at most one letter per recipient.`,
  body: sendLetterBatchBody,
  maxBodyBytes: 4 * 1024 * 1024,
  example: {
    templateId: "0192f1d0-8c1e-7a34-9b7a-2f3e4d5c6b7a",
    from: exampleFrom,
    recipients: [{ to: exampleTo, templateData: { greeting: "Dear Ms Mustermann," } }],
  },
  successStatus: 202,
  errors: ["resource_not_found"],
  response: letterBatchSchema,
});

export const getLetterBatch = defineContract({
  id: "getLetterBatch",
  method: "GET",
  path: "/v1/letters/batch/{batchId}",
  access: "letters:read",
  tag,
  summary: "Get a letter batch",
  description: "The batch's progress: counts and one item per recipient (its letter or its error).",
  params: z.strictObject({ batchId: uuidParam }),
  response: letterBatchSchema,
});

export const listLetters = defineContract({
  id: "listLetters",
  method: "GET",
  path: "/v1/letters",
  access: "letters:read",
  tag,
  summary: "List letters",
  description: "The organization's letters, newest first.",
  query: z.strictObject({ ...paginationQuery(), status: z.enum(LETTER_STATUSES).optional() }),
  response: z.object({ object: z.literal("list"), data: z.array(letterSchema), pagination: paginationSchema }),
});

const letterParams = z.strictObject({ letterId: uuidParam });

export const getLetter = defineContract({
  id: "getLetter",
  method: "GET",
  path: "/v1/letters/{letterId}",
  access: "letters:read",
  tag,
  summary: "Get a letter",
  description: "With its status and timeline.",
  params: letterParams,
  response: letterSchema,
});

export const cancelLetter = defineContract({
  id: "cancelLetter",
  method: "POST",
  path: "/v1/letters/{letterId}/cancel",
  access: "letters:send",
  tag,
  summary: "Cancel a letter",
  description:
    "Allowed while the letter is `queued` or `processing` (until processing ends); later 409 `conflict` naming its status. The hold is released and a `letter.status_changed` event records `canceled`.",
  params: letterParams,
  errors: ["conflict"],
  response: letterSchema,
});

export const progressLetter = defineContract({
  id: "progressLetter",
  method: "POST",
  path: "/v1/letters/{letterId}/progress",
  access: "letters:send",
  tag,
  summary: "Move a test letter one step",
  description:
    "Test mode only: moves a test letter to its next status at once (with its `letter.status_changed` event), as the simulated print centre's clock would. Live letters: 400; a letter in a final status: 409.",
  params: letterParams,
  errors: ["conflict"],
  response: letterSchema,
});

export const letterEventSchema = z.object({
  object: z.literal("letter_event"),
  eventId: z.string(),
  type: z.string(),
  seq: z.int(),
  status: z.enum(LETTER_STATUSES),
  previousStatus: z.enum(LETTER_STATUSES).nullable(),
  reason: z.string().nullable(),
  occurredAt: z.string(),
});

export const listLetterEvents = defineContract({
  id: "listLetterEvents",
  method: "GET",
  path: "/v1/letters/{letterId}/events",
  access: "letters:read",
  tag,
  summary: "A letter's events",
  description: "The letter's `letter.status_changed` events (ledger partition `letter:<id>`), oldest first.",
  params: letterParams,
  query: z.strictObject({ ...paginationQuery() }),
  response: z.object({ object: z.literal("list"), data: z.array(letterEventSchema), pagination: paginationSchema }),
});

// ---- templates --------------------------------------------------------------------------------

const variableSchema = z.object({
  name: z.string(),
  type: z.string().optional(),
  example: z.string().optional(),
  label: z.string().optional(),
});
const variableName = z
  .string()
  .regex(/^[A-Za-z_][\w.]*$/, "A placeholder name: letters, digits, _ and dots.")
  .max(100);
const variablesInput = z
  .union([
    z
      .array(
        z.union([
          variableName,
          z.strictObject({
            name: variableName,
            type: z.string().max(50).optional(),
            example: z.string().max(500).optional(),
            label: z.string().max(200).optional(),
          }),
        ]),
      )
      .max(100),
    z.record(variableName, z.string().max(50)),
  ])
  .describe("Objects, name strings, or a name-to-type map; always read back as objects.");

export const letterTemplateSchema = z.object({
  object: z.literal("letter_template"),
  id: z.uuid(),
  name: z.string(),
  status: z.enum(["active", "archived"]),
  html: z.string().optional().describe("Omitted from list items."),
  variables: z.array(variableSchema),
  createdAt: z.string(),
  updatedAt: z.string().nullable(),
});

const templateName = z.string().trim().min(1).max(200);
const templateHtml = z
  .string()
  .min(1)
  .max(500_000)
  .describe(
    "HTML with `{{placeholders}}` (values are HTML-escaped): `{{to.name}}`, `{{from.city}}`, `{{anyTemplateDataKey}}`.",
  );
const exampleHtml =
  '<html><body><div style="position:absolute;left:25mm;top:63mm">{{to.name}}<br>{{to.street}} {{to.houseNumber}}<br>{{to.postalCode}} {{to.city}}</div><p style="position:absolute;left:25mm;top:105mm">{{greeting}}</p></body></html>';

export const listLetterTemplates = defineContract({
  id: "listLetterTemplates",
  method: "GET",
  path: "/v1/letters/templates",
  access: "letters:read",
  tag,
  summary: "List letter templates",
  description: "Newest first, up to 100, no cursor; items omit `html`.",
  response: z.object({ object: z.literal("list"), data: z.array(letterTemplateSchema), pagination: paginationSchema }),
});

export const createLetterTemplate = defineContract({
  id: "createLetterTemplate",
  method: "POST",
  path: "/v1/letters/templates",
  access: "letters:send",
  tag,
  summary: "Create a letter template",
  description:
    "An HTML letter (A4, the address placed in the window: see `starterTemplates` in the requirements, whose `html` posts verbatim).",
  body: z.strictObject({ name: templateName, html: templateHtml, variables: variablesInput.optional() }),
  example: { name: "Reminder", html: exampleHtml, variables: { greeting: "string" } },
  maxBodyBytes: 1024 * 1024,
  response: letterTemplateSchema,
});

const templateParams = z.strictObject({ templateId: uuidParam });

export const getLetterTemplate = defineContract({
  id: "getLetterTemplate",
  method: "GET",
  path: "/v1/letters/templates/{templateId}",
  access: "letters:read",
  tag,
  summary: "Get a letter template",
  params: templateParams,
  response: letterTemplateSchema,
});

export const updateLetterTemplate = defineContract({
  id: "updateLetterTemplate",
  method: "PATCH",
  path: "/v1/letters/templates/{templateId}",
  access: "letters:send",
  tag,
  summary: "Update a letter template",
  description: "At least one of `name`, `html`, `variables`, `status` (`archived` templates cannot be used).",
  params: templateParams,
  body: z
    .strictObject({
      name: templateName.optional(),
      html: templateHtml.optional(),
      variables: variablesInput.optional(),
      status: z.enum(["active", "archived"]).optional(),
    })
    .refine((b) => Object.keys(b).length > 0, { message: "Give at least one of name, html, variables, status." }),
  example: { status: "archived" },
  maxBodyBytes: 1024 * 1024,
  response: letterTemplateSchema,
});

export const previewLetterTemplate = defineContract({
  id: "previewLetterTemplate",
  method: "POST",
  path: "/v1/letters/templates/{templateId}/preview",
  access: "letters:read",
  tag,
  summary: "Preview a letter template",
  description:
    "Renders the template with `templateData` (and `to`/`from`) to PDF through headless Chromium and runs the verification on it. `output` `inline` (default) answers `pdfBase64`; `url` stores the PDF behind a `pdfUrl` valid 900 seconds. Changes nothing.",
  params: templateParams,
  body: z.strictObject({
    templateData: z.record(z.string(), z.unknown()).optional(),
    to: postalAddressSchema.optional(),
    from: postalAddressSchema.optional(),
    addressPlacement: z.enum(["left", "right"]).default("left"),
    output: z.enum(["inline", "url"]).default("inline"),
    delivery,
    payment: paymentSchema.optional(),
  }),
  idempotent: false,
  example: { templateData: { greeting: "Hello" }, to: exampleTo },
  errors: ["unprocessable", "provider_unavailable"],
  response: z.object({
    object: z.literal("letter_template_preview"),
    templateId: z.uuid(),
    addressPlacement: z.enum(["left", "right"]),
    pdfBase64: z.string().optional(),
    pdfUrl: z.string().optional(),
    pdfUrlExpiresInSeconds: z.int().optional(),
    pageCount: z.int(),
    pageSize: pageSizeSchema,
    valid: z.boolean(),
    summary: z.string(),
    failedChecks: z.array(z.enum(CHECK_IDS)),
    checks: z.array(verificationCheckSchema),
    sizeBytes: z.int(),
    agentHint: z.string(),
  }),
});

// ---- the live print provider's callbacks --------------------------------------------------------

export const receiveLobEvent = defineContract({
  id: "receiveLobEvent",
  method: "POST",
  path: "/v1/providers/lob/events",
  access: "public",
  tag,
  summary: "Lob webhook events",
  description:
    "Lob's letter events (`letter.created`, `letter.rendered_pdf`, `letter.mailed`, `letter.in_transit`, `letter.in_local_area`, `letter.processed_for_delivery`, `letter.re-routed`, `letter.delivered`, `letter.returned_to_sender`, `letter.deleted`, `letter.failed`, `letter.rejected` and their `letter.certified.*` twins) moving live letters to `processing`, `printable`, `submitted`, `in_transit`, `delivered`, `undeliverable`, `canceled` or `failed`, forward only, each a `letter.status_changed` event. Verified by `Lob-Signature` (hex HMAC-SHA256 of `Lob-Signature-Timestamp` + `.` + the raw body, keyed with `LOB_WEBHOOK_SECRET`; the timestamp within 5 minutes): otherwise 401 and nothing stored. An event id is applied once; a replay answers `applied: 0`.",
  // Lob's event object: its fields are Lob's, not ours to restrict.
  body: z.looseObject({}),
  idempotent: false,
  example: { id: "evt_d95ff8ffd2b5cfb4", event_type: { id: "letter.mailed" }, body: { id: "ltr_4868c3b754655f90" } },
  errors: ["invalid_signature"],
  response: z.object({ received: z.literal(true), applied: z.int() }),
});
