import type { AgentRow } from "@/lib/agents/agent";
import type { SendBudgetPlan } from "@/lib/budgets/enforce";
import type { ChannelId } from "@/lib/channels/definitions";
import type { ChannelAdapter } from "@/lib/channels/port";
import type { InboxRow } from "@/lib/inboxes/service";
import type { Principal } from "@/lib/auth/principal";
import type { SendMessageInput } from "../contracts";
import type { StoredAttachment } from "../store";
import type { SendReads } from "./read";

/**
 * The typed draft a send is built in, one stage after another (docs/ARCHITECTURE.md, "Send"):
 * validate → resolve → render → policy → attach → sign → store (with the outbox entry) → deliver → respond.
 * Each stage is a plain function that takes what the earlier stages produced.
 */

/** One entry of `attachments`, as the request gave it: inline bytes (decoded), or a storage object to fetch. */
export type RequestedAttachment =
  | { param: string; inline: StoredAttachment }
  | {
      param: string;
      object: {
        id: string;
        filename: string | null;
        contentType: string | null;
        delivery: "attachment" | "link" | "auto";
      };
    };

/** `validate`: the request's own checks, nothing looked up. */
export interface ValidatedRequest {
  input: SendMessageInput;
  headers: Record<string, string>;
  tags: Record<string, string>;
  attachments: RequestedAttachment[];
  sendAt: Date | null;
}

/** `resolve`: the inbox, the recipients and which of them are inboxes of this service, the thread, the channel. */
export interface ResolvedSend extends ValidatedRequest {
  principal: Principal;
  inbox: InboxRow;
  to: string[];
  cc: string[];
  bcc: string[];
  /** to, cc and bcc without repeats. */
  recipients: string[];
  /** Recipients that are inboxes of this service (any organization), by address. */
  internal: Map<string, InboxRow>;
  inReplyTo: string | null;
  references: string[];
  channel: ChannelAdapter<ChannelId>;
  /** The contact the request named with `contactId`, stored on the message; null otherwise. */
  contactId: string | null;
  /** The rows read ahead for the later stages (`./read.ts`); absent: each stage reads its own. */
  reads?: SendReads;
}

/** `render`: what the message says. */
export interface RenderedSend extends ResolvedSend {
  subject: string;
  text: string | null;
  html: string | null;
  replyTo: string | null;
  /** The template version rendered (pinned at request time), else null. */
  template: { id: string; version: number } | null;
}

export interface SendWarning {
  recipient: string;
  reason: "complaint";
  message: string;
  sourceMessageId: string | null;
  providerMessageId: string | null;
  complaintFeedbackType: string | null;
  complaintUserAgent: string | null;
  lastEventAt: string | null;
}

/** `policy`: allowed to go, with the warnings the caller accepted. A send ready to preview, schedule or sign. */
export interface ApprovedSend extends RenderedSend {
  warnings: SendWarning[];
  /** The budgets' plan: what the accepting transaction reserves (`reserveSend`). */
  budget: SendBudgetPlan;
  /** The agent passport the send is made as (its key's or its inbox's binding), active; null when none. */
  agent: AgentRow | null;
}

/** A storage object the send delivers by link: the share link the body carries. */
export interface LinkedObject {
  objectId: string;
  filename: string;
  sizeBytes: number;
  shareLinkId: string;
}

/** `attach`: the files that go with the message (request order) and the objects that go by link. */
export interface AttachedSend extends ApprovedSend {
  files: StoredAttachment[];
  linked: LinkedObject[];
}

/** `sign`: what leaves the process for the external recipients (null when nothing does), under its Message-ID. */
export interface SignedSend extends AttachedSend {
  /** The outbound message's id (chosen here: the provenance token names it). */
  messageId: string;
  messageIdHeader: string;
  /** The agent's `X-Svc-Provenance` token when the send is an agent's, else null. */
  provenance: string | null;
  /** Whether that token verified against the agent's published key and the body as signed. */
  provenanceVerified: boolean;
  external: string[];
  /** The channel's wire form for external recipients (email: DKIM-signed MIME); null when nothing leaves. */
  wire: Buffer | null;
  /** Why composing failed (the send is stored `failed`), else null. */
  error: string | null;
}
