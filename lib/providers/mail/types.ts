/** A delivery outcome as a provider reports it (SES's notification types). */
export interface ProviderOutcome {
  type: "Delivery" | "Bounce" | "Complaint" | "DeliveryDelay";
  recipient: string;
  occurredAt: Date;
  bounceType?: "Permanent" | "Transient";
  bounceSubType?: string;
  diagnosticCode?: string;
  complaintFeedbackType?: string;
  complaintUserAgent?: string;
}

export interface OutboundMail {
  /** The complete, signed MIME message. */
  raw: Buffer;
  envelope: { from: string; to: string[] };
  messageId: string;
}

export interface SendResult {
  providerMessageId: string;
  provider: string;
  /** Outcomes known at once (the embedded transport); real providers report them later. */
  outcomes: ProviderOutcome[];
}

/** Sends mail to recipients outside this service. */
export interface MailTransport {
  readonly name: string;
  send(mail: OutboundMail): Promise<SendResult>;
}
