import path from "node:path";
import type { DbOrTx } from "@/db";
import type { InvitationEmailProps } from "@/emails/invitation";
import type { MagicLinkEmailProps } from "@/emails/magic-link";
import { sharedDomainKey } from "@/lib/domains/dkim";
import { env, projectRoot } from "@/lib/env";
import { log } from "@/lib/log";
import { buildMime, newMessageId, signDkim } from "@/lib/channels/email/mime";
import { mailTransport } from "@/lib/providers/mail";
import { renderEmailFile } from "@/lib/templates/render";

/** The product's own emails: a file in `emails/` and the props its default export takes. */
export interface SystemEmails {
  "magic-link": MagicLinkEmailProps;
  invitation: InvitationEmailProps;
}

export type SystemEmail = {
  [K in keyof SystemEmails]: {
    to: string;
    subject: string;
    /** Which email of `emails/` (rendered by the template sandbox) and its props. */
    email: K;
    props: SystemEmails[K];
    /** A link the email carries, written to the server log outside production (the embedded default's way to read it). */
    link?: string;
  };
}[keyof SystemEmails];

/** The sender of the product's own mail: `CONSOLE_MAIL_FROM`, else `no-reply@<SHARED_DOMAIN>`. */
export const systemSender = () => env.CONSOLE_MAIL_FROM ?? `no-reply@${env.SHARED_DOMAIN}`;

const EMAILS_DIR = path.join(projectRoot, "emails");

/** Renders one of the product's own emails to HTML and text with the same sandboxed renderer as customer templates. */
export async function renderSystemEmail<K extends keyof SystemEmails>(
  email: K,
  props: SystemEmails[K],
): Promise<{ html: string; text: string }> {
  const out = await renderEmailFile(path.join(EMAILS_DIR, `${email}.tsx`), EMAILS_DIR, { ...props });
  return { html: out.html, text: out.text ?? "" };
}

/**
 * Sends one of the product's own emails (sign-in links, invitations) through the same pipeline as
 * customer mail: rendered by the template sandbox, composed by nodemailer, DKIM-signed with the
 * shared domain's key and handed to the configured transport (the local outbox by default).
 */
export async function sendSystemEmail(db: DbOrTx, mail: SystemEmail): Promise<{ providerMessageId: string }> {
  const { html, text } = await renderSystemEmail(mail.email, mail.props);
  const from = systemSender();
  const domain = from.split("@")[1] ?? env.SHARED_DOMAIN;
  const messageId = newMessageId(domain);
  const raw = await buildMime({
    from: { address: from, name: "Messaging console" },
    to: [mail.to],
    cc: [],
    subject: mail.subject,
    html,
    text,
    messageId,
  });
  const key = await sharedDomainKey(db);
  const signed =
    domain === env.SHARED_DOMAIN
      ? await signDkim(raw, { domain, selector: key.selector, privateKey: key.privateKey })
      : raw;
  const result = await mailTransport().send({ raw: signed, envelope: { from, to: [mail.to] }, messageId });
  if (env.NODE_ENV !== "production" && mail.link) {
    log.info("console email sent", { to: mail.to, subject: mail.subject, link: mail.link, provider: result.provider });
  }
  return { providerMessageId: result.providerMessageId };
}
