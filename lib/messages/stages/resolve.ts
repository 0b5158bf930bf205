import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { messages } from "@/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { type ChannelAdapter, CHANNELS_BY_DEFAULT, channelAdapter, DEFAULT_HANDLE_KINDS } from "@/lib/channels";
import { invalidRequest, notFound } from "@/lib/core/errors";
import { contactAddress, isContactRef } from "@/lib/contacts/addressing";
import type { HandleChannel } from "@/lib/contacts/handles";
import { connectionsOf } from "@/lib/inboxes/connections";
import { findInbox, foundInbox, inboxesByAddress, type InboxRow } from "@/lib/inboxes/service";
import type { ResolvedSend, ValidatedRequest } from "./draft";
import { coveredRows, type SendReads } from "./read";

const asList = (r: string | string[] | undefined): string[] => (r === undefined ? [] : Array.isArray(r) ? r : [r]);
const MAX_RECIPIENTS = 50;

/** A recipient as the request gave it (a contact reference already its handle's value), and where it sits. */
interface GivenRecipient {
  field: "to" | "cc" | "bcc";
  param: string;
  value: string;
}

/**
 * One recipient field as given: an address as written, a contact reference (`@alias`,
 * `contact:<id>`, `@me`) as its handle's value for `channels` (lib/contacts). Not validated here:
 * the chosen channel's address schema does that (`chooseChannel`).
 */
export async function recipientsOf(
  db: DbOrTx,
  orgId: string,
  field: "to" | "cc" | "bcc",
  value: string | string[] | undefined,
  channels: readonly string[],
): Promise<GivenRecipient[]> {
  const list = asList(value);
  const out: GivenRecipient[] = [];
  for (const [i, raw] of list.entries()) {
    const param = Array.isArray(value) ? `${field}[${i}]` : field;
    out.push({
      field,
      param,
      value: isContactRef(raw)
        ? (await contactAddress(db, orgId, raw, channels as HandleChannel[], param)).address
        : raw,
    });
  }
  return out;
}

/**
 * The channel and the recipients in its normal form: the named channel (its address schema must
 * take every recipient, else 400 naming it), or the auto rule — the highest-ranked channel whose
 * address schema takes every recipient and whose `byDefault` takes the send (a2a when every
 * recipient is an inbox of this service, else email). One lookup of the service's inboxes per
 * distinct normal form (one for email and a2a, which share it).
 */
async function chooseChannel(
  db: DbOrTx,
  named: string | undefined,
  given: GivenRecipient[],
  senderInboxId: string,
  reads?: SendReads,
): Promise<{
  channel: ChannelAdapter;
  lists: Record<GivenRecipient["field"], string[]>;
  internal: Map<string, InboxRow>;
}> {
  const candidates = named ? [channelAdapter(named)] : CHANNELS_BY_DEFAULT;
  const looked = new Map<string, Map<string, InboxRow>>();
  // The channels the sending inbox is connected on, read once when the auto rule runs.
  const senderChannels = named
    ? []
    : [
        ...new Set(
          (reads?.connections ?? (await connectionsOf(db, senderInboxId)))
            .filter((c) => c.status === "active")
            .map((c) => c.channel),
        ),
      ];
  for (const [i, channel] of candidates.entries()) {
    const last = i === candidates.length - 1;
    const lists: Record<GivenRecipient["field"], string[]> = { to: [], cc: [], bcc: [] };
    let refused: { message: string; param: string } | null = null;
    for (const g of given) {
      const a = channel.address(g.value);
      if (!a.ok) {
        refused = { message: a.message, param: g.param };
        break;
      }
      lists[g.field].push(a.address);
    }
    if (refused) {
      if (last) throw invalidRequest(refused.message, refused.param);
      continue;
    }
    const recipients = [...new Set([...lists.to, ...lists.cc, ...lists.bcc])];
    if (recipients.length > MAX_RECIPIENTS)
      throw invalidRequest(`At most ${MAX_RECIPIENTS} recipients in to, cc and bcc together.`, "to");
    const key = recipients.join("\n");
    const internal =
      looked.get(key) ??
      (await inboxesByAddress(
        db,
        recipients,
        coveredRows(reads, (r) => r.inboxes, recipients),
      ));
    looked.set(key, internal);
    if (named || last || channel.byDefault?.takes({ recipients, internal, senderChannels }))
      return { channel, lists, internal };
  }
  throw new Error("no channel takes these recipients");
}

/** The thread the request names: its options' (the channel's thread options) or the message `replyToMessageId` names. */
async function threadHeaders(
  db: DbOrTx,
  orgId: string,
  input: ValidatedRequest["input"],
  channel: ChannelAdapter,
): Promise<{ inReplyTo: string | null; references: string[] }> {
  let { inReplyTo, references } = channel.threadOptions(input);
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
 * Stage 2: the sending inbox, the channel (the request's, else the one that fits the recipients),
 * the recipients in its normal form and which of them are inboxes of this service, the thread.
 */
export async function resolveSend(
  db: DbOrTx,
  principal: Principal,
  v: ValidatedRequest,
  inbox?: InboxRow,
  reads?: SendReads,
): Promise<ResolvedSend> {
  const from = inbox ?? (reads ? foundInbox(reads.inbox) : await findInbox(db, principal, v.input.inboxId));
  const orgId = principal.orgId;
  const kinds = v.input.channel ? channelAdapter(v.input.channel).handleKinds : DEFAULT_HANDLE_KINDS;
  const given = await recipientsOf(db, orgId, "to", v.input.to, kinds);
  const named = v.input.contactId
    ? await contactAddress(
        db,
        orgId,
        isContactRef(v.input.contactId) ? v.input.contactId : `contact:${v.input.contactId}`,
        kinds as HandleChannel[],
        "contactId",
      )
    : null;
  if (named) given.push({ field: "to", param: "contactId", value: named.address });
  given.push(...(await recipientsOf(db, orgId, "cc", v.input.cc, kinds)));
  given.push(...(await recipientsOf(db, orgId, "bcc", v.input.bcc, kinds)));
  const { channel, lists, internal } = await chooseChannel(db, v.input.channel, given, from.id, reads);
  const { inReplyTo, references } = await threadHeaders(db, principal.orgId, v.input, channel);
  return {
    ...v,
    principal,
    inbox: from,
    to: lists.to,
    cc: lists.cc,
    bcc: lists.bcc,
    recipients: [...new Set([...lists.to, ...lists.cc, ...lists.bcc])],
    internal,
    inReplyTo,
    references,
    channel,
    contactId: named?.contactId ?? null,
    reads,
  };
}
