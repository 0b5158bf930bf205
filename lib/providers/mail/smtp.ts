import nodemailer from "nodemailer";
import type { MailTransport, OutboundMail, SendResult } from "./types";

/** Connections the relay transport keeps open to the smarthost (each carries up to 100 messages, then is renewed). */
const POOL_CONNECTIONS = 5;

/**
 * Any SMTP smarthost (SMTP_RELAY_URL), through a pool of open connections: a batch of handoffs (a
 * broadcast's) goes over at most `POOL_CONNECTIONS` authenticated connections instead of a new
 * connection, greeting and AUTH per message (the URL may override the pool's options, e.g.
 * `?maxConnections=2`). Outcomes arrive later, if the relay reports them.
 */
export function smtpRelayTransport(url: string): MailTransport & { close(): void } {
  const transporter = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: POOL_CONNECTIONS,
    maxMessages: 100,
  });
  return {
    name: "smtp",
    async send(mail: OutboundMail): Promise<SendResult> {
      const info = await transporter.sendMail({ envelope: mail.envelope, raw: mail.raw });
      return { providerMessageId: String(info.messageId ?? mail.messageId), provider: "smtp", outcomes: [] };
    },
    close: () => transporter.close(),
  };
}
