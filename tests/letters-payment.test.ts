import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { epcPayload, ibanValid, paymentSchema } from "@/lib/letters/payment";
import { verifyPdf } from "@/lib/letters/verify";
import { closeRenderer } from "@/lib/providers/print/render";
import { call, newOrg, type TestOrg } from "./harness";
import { FROM, starterTemplate, TO } from "./fixtures/letters";

/**
 * The payment slip (`payment`, template path only): a SEPA credit transfer printed as the letter's
 * last page with the EPC QR code, found again in the PDF's text by the `payment_slip` check (and by
 * poppler's `pdftotext`); a template's CSS cannot hide it (it is a page of its own); a PDF without
 * the slip's text fails that check naming `payment`; the letter record answers what was printed.
 */

const PAYMENT = {
  recipientName: "Beispiel GmbH",
  iban: "de89 3704 0044 0532 0130 00",
  bic: "COBADEFFXXX",
  amountCents: 123456,
  reference: "Invoice 2026-0042",
  dueDate: "2026-12-31",
};
const templateData = { greeting: "Dear Ms Mustermann,", body: "Your invoice is attached.", closing: "Regards" };

let org: TestOrg;
let templateId: string;
let hidingId: string;

beforeAll(async () => {
  org = await newOrg();
  templateId = await starterTemplate(org.secret);
  hidingId = await starterTemplate(org.secret, (html) =>
    html.replace("</head>", "<style>[data-payment-slip]{display:none}</style></head>"),
  );
}, 120_000);

afterAll(async () => {
  await closeRenderer();
});

describe("the payment object", () => {
  test("IBANs are checked with mod 97, spaces ignored; the EPC QR payload follows EPC069-12 v002", () => {
    expect(ibanValid("DE89370400440532013000")).toBe(true);
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    const p = paymentSchema.parse(PAYMENT);
    expect(p).toMatchObject({ iban: "DE89370400440532013000", currency: "EUR", type: "sepa_credit_transfer" });
    expect(epcPayload(p).split("\n")).toEqual([
      "BCD",
      "002",
      "1",
      "SCT",
      "COBADEFFXXX",
      "Beispiel GmbH",
      "DE89370400440532013000",
      "EUR1234.56",
      "",
      "",
      "Invoice 2026-0042",
    ]);
    expect(paymentSchema.safeParse({ ...PAYMENT, iban: "DE00 3704 0044 0532 0130 00" }).success).toBe(false);
    expect(paymentSchema.safeParse({ ...PAYMENT, amountCents: 0 }).success).toBe(false);
    expect(paymentSchema.safeParse({ ...PAYMENT, currency: "USD" }).success).toBe(false);
  });
});

describe("a letter with a payment slip", () => {
  test("the slip is the last page: verified, cross-read by pdftotext, priced as a page, answered by the letter", async () => {
    const plain = await call("POST", "/v1/letters/templates/" + templateId + "/preview", {
      key: org.secret,
      body: { to: TO, from: FROM, templateData },
    });
    const preview = await call("POST", `/v1/letters/templates/${templateId}/preview`, {
      key: org.secret,
      body: { to: TO, from: FROM, templateData, payment: PAYMENT },
    });
    expect(preview.status, JSON.stringify(preview.body).slice(0, 500)).toBe(200);
    expect(preview.body.valid, JSON.stringify(preview.body.checks)).toBe(true);
    expect(preview.body.pageCount).toBe(plain.body.pageCount + 1);
    const slip = preview.body.checks.find((c: { id: string }) => c.id === "payment_slip");
    expect(slip).toMatchObject({ status: "pass", page: preview.body.pageCount });
    expect(plain.body.checks.find((c: { id: string }) => c.id === "payment_slip")).toMatchObject({
      status: "skipped",
    });

    // poppler reads the same text on the last page
    const dir = await mkdtemp(path.join(tmpdir(), "svc-slip-"));
    try {
      const file = path.join(dir, "slip.pdf");
      await writeFile(file, Buffer.from(preview.body.pdfBase64, "base64"));
      const last = String(preview.body.pageCount);
      const { stdout } = await promisify(execFile)("pdftotext", ["-f", last, "-l", last, file, "-"]);
      expect(stdout).toContain("DE89 3704 0044 0532 0130 00");
      expect(stdout).toContain("EUR 1234.56");
      expect(stdout).toContain("Invoice 2026-0042");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const sent = await call("POST", "/v1/letters", {
      key: org.secret,
      body: { templateId, to: TO, from: FROM, templateData, payment: PAYMENT },
    });
    expect(sent.status, JSON.stringify(sent.body).slice(0, 500)).toBe(201);
    expect(sent.body.pageCount).toBe(preview.body.pageCount);
    expect(sent.body.payment).toEqual({
      type: "sepa_credit_transfer",
      recipientName: "Beispiel GmbH",
      iban: "DE89370400440532013000",
      bic: "COBADEFFXXX",
      amountCents: 123456,
      currency: "EUR",
      reference: "Invoice 2026-0042",
      dueDate: "2026-12-31",
    });
    const got = await call("GET", `/v1/letters/${sent.body.id}`, { key: org.secret });
    expect(got.body.payment).toEqual(sent.body.payment);
  }, 120_000);

  test("a template cannot hide the slip (its own page); a PDF without the slip's text fails payment_slip, naming payment", async () => {
    const verified = await call("POST", "/v1/letters/verify", {
      key: org.secret,
      body: { templateId: hidingId, to: TO, from: FROM, templateData, payment: PAYMENT },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.failedChecks).toEqual([]);
    expect(verified.body.checks.find((c: { id: string }) => c.id === "payment_slip").status).toBe("pass");
    // The letter rendered without its slip, verified as if it carried one.
    const plain = await call("POST", `/v1/letters/templates/${templateId}/preview`, {
      key: org.secret,
      body: { to: TO, from: FROM, templateData },
    });
    const result = await verifyPdf({
      bytes: new Uint8Array(Buffer.from(plain.body.pdfBase64, "base64")),
      sourceParam: "templateId",
      to: TO,
      print: { color: false, sides: "simplex", addressPlacement: "left" },
      delivery: "standard",
      payment: paymentSchema.parse(PAYMENT),
    });
    expect(result.verification.failedChecks).toEqual(["payment_slip"]);
    expect(result.param).toBe("payment");
    expect(result.verification.checks.find((c) => c.id === "payment_slip")?.actual).toBe(
      "missing the IBAN DE89 3704 0044 0532 0130 00, the amount EUR 1234.56",
    );
  }, 120_000);

  test("payment goes with templateId only, and a bad IBAN is a 400 naming payment.iban", async () => {
    const withPdf = await call("POST", "/v1/letters/verify", {
      key: org.secret,
      body: { pdfBase64: "JVBERi0xLjcK", to: TO, payment: PAYMENT },
    });
    expect(withPdf.status).toBe(400);
    expect(withPdf.body.error.param).toBe("payment");
    const badIban = await call("POST", "/v1/letters", {
      key: org.secret,
      body: { templateId, to: TO, templateData, payment: { ...PAYMENT, iban: "DE00370400440532013000" } },
    });
    expect(badIban.status).toBe(400);
    expect(badIban.body.error.param).toBe("payment.iban");
  });
});
