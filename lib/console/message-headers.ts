/**
 * The message detail page's "Headers" view: the message's RFC 5322 header block as text, built
 * from what the service stores of it (addresses, subject, date, Message-ID, In-Reply-To,
 * References, Reply-To and an outbound send's custom `headers`). The raw MIME is not kept, so
 * transport headers added on the wire (Received, DKIM-Signature, Authentication-Results) are not
 * here; the page says so. Pure, so the console shows it as text only (never as markup).
 */

export interface HeaderSource {
  direction: "inbound" | "outbound";
  from: { address: string; name: string | null };
  to: readonly string[];
  cc: readonly string[];
  /** Outbound only (an inbound message's Bcc is never known); shown as the sender's copy would. */
  bcc: readonly string[];
  subject: string;
  messageId: string;
  inReplyTo: string | null;
  references: readonly string[];
  receivedAt: string;
  sentAt: string | null;
  createdAt: string;
}

/** A display name quoted when it holds characters a bare phrase may not (RFC 5322 §3.2.3). */
function mailbox(from: { address: string; name: string | null }): string {
  if (!from.name) return from.address;
  const name = /^[\w !#$%&'*+/=?^`{|}~-]+$/.test(from.name) ? from.name : `"${from.name.replace(/(["\\])/g, "\\$1")}"`;
  return `${name} <${from.address}>`;
}

/** Control characters (a stored value cannot break the block into extra header lines). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/** The header block, one `Name: value` a line, in the usual order; custom headers last. */
export function headerBlock(
  m: HeaderSource,
  stored: { replyTo: string | null; headers: Record<string, string> | null } | null,
): string {
  const date = m.direction === "outbound" ? (m.sentAt ?? m.createdAt) : m.receivedAt;
  const lines: [string, string][] = [
    ["From", mailbox(m.from)],
    ["To", m.to.join(", ")],
    ["Cc", m.cc.join(", ")],
    ["Bcc", m.direction === "outbound" ? m.bcc.join(", ") : ""],
    ["Reply-To", stored?.replyTo ?? ""],
    ["Subject", m.subject],
    ["Date", new Date(date).toUTCString()],
    ["Message-ID", m.messageId],
    ["In-Reply-To", m.inReplyTo ?? ""],
    ["References", m.references.join(" ")],
    ...Object.entries(stored?.headers ?? {}),
  ];
  return lines
    .filter(([, value]) => value !== "")
    .map(([name, value]) => `${name.replace(CONTROL, "")}: ${value.replace(CONTROL, " ")}`)
    .join("\n");
}
