import type { z } from "zod";

/**
 * What the rest of the system needs to know about a channel without loading its delivery code:
 * its id, the public schema of its `channelMetadata`, its request options and the contact handle
 * kinds it takes. Pure data and zod, so the database schema, the contracts, the console and the
 * OpenAPI document can derive from it.
 */
export interface ChannelDefinition<
  Id extends string = string,
  M extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  id: Id;
  label: string;
  /** The public `channelMetadata`: an object schema; keys outside it are stripped on the way out. */
  metadata: M;
  /** Whether a send's response shows the message's `channelMetadata` (else `null` there). */
  inSendResponse: boolean;
  /** The console's badge on this channel's messages in lists, or null for none (email, the plain case). */
  badge: string | null;
  /**
   * The channel's own fields of a send request (email: cc, bcc, replyTo, inReplyTo, references,
   * headers): the send contract carries every channel's, and a send over another channel that
   * gives one is refused (400 naming the field).
   */
  options: O;
  /** The contact handle kinds a recipient of this channel can be (the first preferred when a contact has several). */
  handleKinds: readonly string[];
  /** The handle of this channel's own kind: its check and normal form (null: not an address of it), and the hint when not. */
  handle: { normalize(value: string): string | null; hint: string; example: string };
  /** How an inbox connects on this channel (the console's connections list); absent when it has no connection of its own (a2a rides the email address). */
  connection?: ConnectionDefinition;
  /** What the console shows of a message's public `channelMetadata` beside its body (where it is in the channel, its buttons). */
  present?: (metadata: Record<string, unknown>) => MessagePresentation;
  /** An inbound interaction of this channel (a button's tap) in words, from its ledger event's `data`. */
  interaction?: (type: string, data: Record<string, unknown>) => string;
  /**
   * Whether an inbound message's sender is authenticated, from its stored `channelMetadata`
   * (verification waits resolve from authenticated senders only): `authenticated`, `failed` (the
   * sender's domain policy refused it: email's DMARC fail) or `unknown`. Absent: `authenticated` —
   * the channel's ingress verified the provider's signature and the sender is the provider's
   * (a2a: an inbox of this service; SMS, Telegram, Slack: the provider's number or user id).
   */
  senderAuth?: (metadata: Record<string, unknown>) => SenderAuth;
}

export type SenderAuth = "authenticated" | "failed" | "unknown";

/**
 * An inbox's connection on a channel, as the console lists and makes it (words, and which
 * operations connect and disconnect: named by id, so this stays data the console looks up in the
 * operation registry).
 */
export interface ConnectionDefinition {
  /** The row's name on an inbox's page ("Telegram bot"). */
  label: string;
  /** What the row says when the inbox has none ("No bot connected"). */
  none: string;
  connect: ConnectMethod;
}

export type ConnectMethod =
  /** The inbox's own address: given when the inbox is created, never changed. */
  | { kind: "address"; note: string }
  /**
   * A credential the customer pastes: `operationId` takes the inbox (`inboxId`) and the credential
   * as `field`; `disconnectOperationId` takes the inbox.
   */
  | {
      kind: "credential";
      operationId: string;
      field: string;
      fieldLabel: string;
      hint: string;
      submit: string;
      disconnectOperationId: string;
      disconnectNote: string;
    }
  /**
   * A provider's install link for one of the organization's apps: `operationId` takes the app
   * (path parameter `appParam`) and the inbox (`inboxId`) and answers `{url, expiresAt}`;
   * `appsOperationId` lists the apps, `apps` reads its answer.
   */
  | {
      kind: "install";
      operationId: string;
      appParam: string;
      appsOperationId: string;
      apps: (data: unknown) => { id: string; label: string }[];
      hint: string;
      noApps: string;
      disconnectNote: string;
    }
  /** A connection still to come (no channel of this deployment yet). */
  | { kind: "planned"; note: string };

/** A message's channel facts for the console: labelled values, and button rows (said in words, never live). */
export interface MessagePresentation {
  facts: [string, string][];
  buttons: { text: string; action: string }[][];
}

export const defineChannelDefinition = <Id extends string, M extends z.ZodObject, O extends z.ZodObject>(
  d: ChannelDefinition<Id, M, O>,
) => d;
