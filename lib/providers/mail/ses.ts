import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import type { MailTransport, OutboundMail, SendResult } from "./types";

/**
 * Amazon SES through the AWS SDK's SESv2 client: raw MIME (already DKIM-signed by the service).
 * Delivery outcomes arrive later as SNS notifications at `POST /v1/providers/ses/events`.
 */
export function sesTransport(opts: { region: string; configurationSet?: string; endpoint?: string }): MailTransport {
  const client = new SESv2Client({ region: opts.region, ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) });
  return {
    name: "ses",
    async send(mail: OutboundMail): Promise<SendResult> {
      const out = await client.send(
        new SendEmailCommand({
          FromEmailAddress: mail.envelope.from,
          Destination: { ToAddresses: mail.envelope.to },
          Content: { Raw: { Data: mail.raw } },
          ...(opts.configurationSet ? { ConfigurationSetName: opts.configurationSet } : {}),
        }),
      );
      if (!out.MessageId) throw new Error("SES returned no MessageId");
      return { providerMessageId: out.MessageId, provider: "ses", outcomes: [] };
    },
  };
}
