import { render, toPlainText } from "@react-email/render";
import type { ReactElement } from "react";
import type { DbOrTx } from "@/db";
import { sharedDomainKey } from "@/lib/domains/dkim";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { buildMime, newMessageId, signDkim } from "@/lib/messages/mime";
import { mailTransport } from "@/lib/providers/mail";

export interface SystemEmail {
  to: string;
  subject: string;
  /** A react-email element from `emails/`. */
  body: ReactElement;
  /** A link the email carries, written to the server log outside production (the embedded default's way to read it). */
  link?: string;
}

/** The sender of the product's own mail: `CONSOLE_MAIL_FROM`, else `no-reply@<SHARED_DOMAIN>`. */
export const systemSender = () => env.CONSOLE_MAIL_FROM ?? `no-reply@${env.SHARED_DOMAIN}`;

/**
 * Sends one of the product's own emails (sign-in links, invitations) through the same pipeline as
 * customer mail: rendered with react-email, composed by nodemailer, DKIM-signed with the shared
 * domain's key and handed to the configured transport (the local outbox by default).
 */
export async function sendSystemEmail(db: DbOrTx, mail: SystemEmail): Promise<{ providerMessageId: string }> {
  const html = await render(mail.body);
  const text = toPlainText(html);
  const from = systemSender();
  const domain = from.split("@")[1] ?? env.SHARED_DOMAIN;
  const messageId = newMessageId(domain);
  const raw = await buildMime({ from: { address: from, name: "Messaging console" }, to: [mail.to], cc: [], subject: mail.subject, html, text, messageId });
  const key = await sharedDomainKey(db);
  const signed = domain === env.SHARED_DOMAIN ? await signDkim(raw, { domain, selector: key.selector, privateKey: key.privateKey }) : raw;
  const result = await mailTransport().send({ raw: signed, envelope: { from, to: [mail.to] }, messageId });
  if (env.NODE_ENV !== "production" && mail.link) {
    log.info("console email sent", { to: mail.to, subject: mail.subject, link: mail.link, provider: result.provider });
  }
  return { providerMessageId: result.providerMessageId };
}
