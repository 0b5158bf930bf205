import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { MailTransport, OutboundMail, ProviderOutcome, SendResult } from "./types";

const SIMULATOR = "simulator.amazonses.com";

/**
 * Outcomes of the Amazon SES mailbox simulator's addresses (a `+label` is allowed), so the same
 * test addresses behave the same here and on SES; any other address is delivered.
 */
export function simulatedOutcomes(recipient: string, now: Date = new Date()): ProviderOutcome[] {
  const [localRaw = "", domain = ""] = recipient.toLowerCase().split("@");
  const local = localRaw.split("+")[0];
  const base = { recipient, occurredAt: now };
  if (domain !== SIMULATOR) return [{ type: "Delivery", ...base }];
  switch (local) {
    case "bounce":
      return [
        {
          type: "Bounce",
          ...base,
          bounceType: "Permanent",
          bounceSubType: "General",
          diagnosticCode: "smtp; 550 5.1.1 user unknown",
        },
      ];
    case "suppressionlist":
      return [
        {
          type: "Bounce",
          ...base,
          bounceType: "Permanent",
          bounceSubType: "OnAccountSuppressionList",
          diagnosticCode: "Amazon SES has suppressed sending to this address.",
        },
      ];
    case "complaint":
      return [
        { type: "Delivery", ...base },
        {
          type: "Complaint",
          ...base,
          complaintFeedbackType: "abuse",
          complaintUserAgent: "Amazon SES Mailbox Simulator",
        },
      ];
    case "ooto":
    case "success":
    default:
      return [{ type: "Delivery", ...base }];
  }
}

/**
 * The embedded transport: keeps each outbound message in a local outbox directory (readable
 * `.eml` files) and reports outcomes at once, as the SES mailbox simulator would.
 */
export function embeddedTransport(outboxDir: string): MailTransport {
  return {
    name: "embedded",
    async send(mail: OutboundMail): Promise<SendResult> {
      const providerMessageId = `emb-${randomUUID()}`;
      const file = path.join(outboxDir, `${providerMessageId}.eml`);
      // Written aside, then renamed: an `.eml` is there whole or not at all (a crash mid-write leaves
      // only a `.tmp`). The directory is made when a write finds it missing (first send, or removed since).
      const partial = `${file}.tmp`;
      await fs.writeFile(partial, mail.raw).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw err;
        await fs.mkdir(outboxDir, { recursive: true });
        await fs.writeFile(partial, mail.raw);
      });
      await fs.rename(partial, file);
      const now = new Date();
      return {
        providerMessageId,
        provider: "embedded",
        outcomes: mail.envelope.to.flatMap((r) => simulatedOutcomes(r, now)),
      };
    },
  };
}
