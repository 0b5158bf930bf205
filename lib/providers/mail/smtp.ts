import nodemailer from "nodemailer";
import type { MailTransport, OutboundMail, SendResult } from "./types";

/** Any SMTP smarthost (SMTP_RELAY_URL). Outcomes arrive later, if the relay reports them. */
export function smtpRelayTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url);
  return {
    name: "smtp",
    async send(mail: OutboundMail): Promise<SendResult> {
      const info = await transporter.sendMail({ envelope: mail.envelope, raw: mail.raw });
      return { providerMessageId: String(info.messageId ?? mail.messageId), provider: "smtp", outcomes: [] };
    },
  };
}
