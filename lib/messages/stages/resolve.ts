import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "@/db";
import { messages } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { channelAdapter, defaultChannel } from "@/lib/channels";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { contactAddress, isContactRef } from "@/lib/contacts/addressing";
import type { HandleChannel } from "@/lib/contacts/handles";
import { findInbox, inboxesByAddress, type InboxRow } from "@/lib/inboxes/service";
import { angleBrackets } from "../mime";
import type { ResolvedSend, ValidatedRequest } from "./draft";

const asList = (r: string | string[] | undefined): string[] => (r === undefined ? [] : Array.isArray(r) ? r : [r]);
const emailSchema = z.email();
const MAX_RECIPIENTS = 50;

/**
 * One recipient field as addresses: an address as given (normalized), a contact reference
 * (`@alias`, `contact:<id>`, `@me`) as its address for `channels` (lib/contacts).
 */
export async function recipientsOf(
  db: DbOrTx,
  orgId: string,
  field: "to" | "cc" | "bcc",
  value: string | string[] | undefined,
  channels: HandleChannel[],
): Promise<string[]> {
  const list = asList(value);
  const out: string[] = [];
  for (const [i, raw] of list.entries()) {
    const param = Array.isArray(value) ? `${field}[${i}]` : field;
    if (isContactRef(raw)) {
      out.push((await contactAddress(db, orgId, raw, channels, param)).address);
      continue;
    }
    const address = raw.trim().toLowerCase();
    if (!emailSchema.safeParse(address).success) throw invalidRequest(`"${raw}" is not a valid email address.`, param);
    out.push(address);
  }
  return out;
}

/** Which contact handles stand for an address in a send: the requested channel's first, then email's. */
function handleChannels(channel: string | undefined): HandleChannel[] {
  return channel === "a2a" ? ["a2a", "email"] : ["email", "a2a"];
}

/** In-Reply-To and References, from the request or from the message `replyToMessageId` names. */
async function threadHeaders(
  db: DbOrTx,
  orgId: string,
  input: ValidatedRequest["input"],
): Promise<{ inReplyTo: string | null; references: string[] }> {
  let inReplyTo = input.inReplyTo ? angleBrackets(input.inReplyTo) : null;
  let references = (input.references ?? []).map(angleBrackets);
  if (input.replyToMessageId) {
    const [parent] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.orgId, orgId), eq(messages.id, input.replyToMessageId)));
    if (!parent) throw notFound("message", "replyToMessageId");
    if (inReplyTo && inReplyTo !== parent.messageIdHeader) {
      throw invalidRequest("`inReplyTo` disagrees with the message named by `replyToMessageId`.", "inReplyTo");
    }
    inReplyTo = parent.messageIdHeader;
    if (references.length === 0) references = [...parent.references, parent.messageIdHeader].slice(-32);
  }
  if (references.length === 0 && inReplyTo) references = [inReplyTo];
  return { inReplyTo, references };
}

/**
 * Stage 2: the sending inbox, the recipients and which of them are inboxes of this service, the
 * thread headers, and the channel (the request's, else the one that fits the recipients).
 */
export async function resolveSend(
  db: DbOrTx,
  principal: Principal,
  v: ValidatedRequest,
  inbox?: InboxRow,
): Promise<ResolvedSend> {
  const from = inbox ?? (await findInbox(db, principal, v.input.inboxId));
  const orgId = principal.orgId;
  const channels = handleChannels(v.input.channel);
  const to = await recipientsOf(db, orgId, "to", v.input.to, channels);
  const named = v.input.contactId
    ? await contactAddress(
        db,
        orgId,
        isContactRef(v.input.contactId) ? v.input.contactId : `contact:${v.input.contactId}`,
        channels,
        "contactId",
      )
    : null;
  if (named) to.push(named.address);
  const cc = await recipientsOf(db, orgId, "cc", v.input.cc, channels);
  const bcc = await recipientsOf(db, orgId, "bcc", v.input.bcc, channels);
  const recipients = [...new Set([...to, ...cc, ...bcc])];
  if (recipients.length > MAX_RECIPIENTS)
    throw invalidRequest(`At most ${MAX_RECIPIENTS} recipients in to, cc and bcc together.`, "to");
  const { inReplyTo, references } = await threadHeaders(db, principal.orgId, v.input);
  const internal = await inboxesByAddress(db, recipients);
  const channel = v.input.channel ? channelAdapter(v.input.channel) : defaultChannel({ recipients, internal });
  return {
    ...v,
    principal,
    inbox: from,
    to,
    cc,
    bcc,
    recipients,
    internal,
    inReplyTo,
    references,
    channel,
    contactId: named?.contactId ?? null,
  };
}
