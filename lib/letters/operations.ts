import { defineOperation } from "@/lib/core/operation";
import * as batches from "./batch";
import * as c from "./contracts";
import * as letters from "./letters";
import * as lobEvents from "./lob-events";
import { priceLetter as price } from "./price";
import { letterRequirements } from "./requirements";
import { documentOf } from "./source";
import * as templates from "./templates";
import { verifyPdf } from "./verify";

export const getLetterRequirements = defineOperation(c.getLetterRequirements, () =>
  Promise.resolve(letterRequirements()),
);
export const verifyLetter = defineOperation(
  c.verifyLetter,
  async ({ db, principal, body }) => {
    const { bytes, sourceParam } = await documentOf(db, principal, body);
    const result = await verifyPdf({
      bytes,
      sourceParam,
      to: body.to,
      print: body.print,
      delivery: body.delivery,
      maxPages: body.maxPages,
      payment: body.payment,
    });
    return result.verification;
  },
  { audit: { none: "verification changes nothing" } },
);
export const priceLetter = defineOperation(c.priceLetter, ({ body }) => Promise.resolve(price(body)), {
  audit: { none: "a price changes nothing" },
});
export const sendLetter = defineOperation(c.sendLetter, ({ db, principal, body }) =>
  letters.sendLetter(db, principal, body),
);
export const listLetters = defineOperation(c.listLetters, ({ db, principal, query }) =>
  letters.listLetters(db, principal, query),
);
export const getLetter = defineOperation(c.getLetter, ({ db, principal, params }) =>
  letters.getLetter(db, principal, params.letterId),
);
export const cancelLetter = defineOperation(c.cancelLetter, ({ db, principal, params }) =>
  letters.cancelLetter(db, principal, params.letterId),
);
export const progressLetter = defineOperation(c.progressLetter, ({ db, principal, params }) =>
  letters.progressLetter(db, principal, params.letterId),
);
export const listLetterEvents = defineOperation(c.listLetterEvents, ({ db, principal, params, query }) =>
  letters.listLetterEvents(db, principal, params.letterId, query),
);

export const listLetterTemplates = defineOperation(c.listLetterTemplates, ({ db, principal }) =>
  templates.listTemplates(db, principal),
);
export const createLetterTemplate = defineOperation(c.createLetterTemplate, ({ db, principal, body }) =>
  templates.createTemplate(db, principal, body),
);
export const getLetterTemplate = defineOperation(c.getLetterTemplate, ({ db, principal, params }) =>
  templates.getTemplate(db, principal, params.templateId),
);
export const updateLetterTemplate = defineOperation(c.updateLetterTemplate, ({ db, principal, params, body }) =>
  templates.updateTemplate(db, principal, params.templateId, body),
);
export const previewLetterTemplate = defineOperation(
  c.previewLetterTemplate,
  ({ db, principal, params, body }) => templates.previewTemplate(db, principal, params.templateId, body),
  { audit: { none: "a preview changes nothing (the stored PDF is a short-lived file)" } },
);

export const sendLetterBatch = defineOperation(c.sendLetterBatch, ({ db, principal, body }) =>
  batches.sendLetterBatch(db, principal, body),
);
export const getLetterBatch = defineOperation(c.getLetterBatch, ({ db, principal, params }) =>
  batches.getLetterBatch(db, principal, params.batchId),
);

export const receiveLobEvent = defineOperation(
  c.receiveLobEvent,
  ({ db, body, request }) => lobEvents.receiveLobEvent(db, body, request),
  {
    audit: { none: "print provider callbacks: status changes recorded as letter events on the ledger" },
    surfaces: { http: true, mcp: false, cli: false },
  },
);
