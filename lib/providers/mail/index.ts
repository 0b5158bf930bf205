import path from "node:path";
import { env } from "@/lib/env";
import { embeddedTransport } from "./embedded";
import { sesTransport } from "./ses";
import { smtpRelayTransport } from "./smtp";
import type { MailTransport } from "./types";

export type { MailTransport, OutboundMail, ProviderOutcome, SendResult } from "./types";

let instance: MailTransport | undefined;

/** The outbound transport MAIL_TRANSPORT chooses. */
export function mailTransport(): MailTransport {
  if (!instance) {
    if (env.MAIL_TRANSPORT === "ses") {
      instance = sesTransport({
        region: env.SES_REGION,
        configurationSet: env.SES_CONFIGURATION_SET,
        endpoint: env.SES_ENDPOINT,
      });
    } else if (env.MAIL_TRANSPORT === "smtp") {
      if (!env.SMTP_RELAY_URL) throw new Error("MAIL_TRANSPORT=smtp needs SMTP_RELAY_URL");
      instance = smtpRelayTransport(env.SMTP_RELAY_URL);
    } else {
      instance = embeddedTransport(path.resolve(env.OUTBOX_DIR));
    }
  }
  return instance;
}
