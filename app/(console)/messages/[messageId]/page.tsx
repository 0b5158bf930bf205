import Link from "next/link";
import type { ReactNode } from "react";
import { AttachmentList } from "@/components/console/messaging/attachments";
import { formatAddresses, formatSender, subjectOf } from "@/components/console/messaging/format";
import { MessageBody } from "@/components/console/messaging/message-body";
import { readOne } from "@/lib/console/pages";
import {
  Badge,
  Card,
  Details,
  EmptyState,
  Mono,
  DeliveryStatusBadge,
  NoAccess,
  PageHeader,
  Table,
  Td,
  Time,
  type Tone,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { getInbox } from "@/lib/inboxes/operations";
import { outboundEventSchema } from "@/lib/messages/contracts";
import { getMessage, listMessageEvents } from "@/lib/messages/operations";

export const metadata = { title: "Message — svc console" };

/** What a delivery event adds beyond its type, recipient and time (bounce and complaint details). */
function eventDetails(event: unknown): string {
  const parsed = outboundEventSchema.safeParse(event);
  if (!parsed.success) return "—";
  const e = parsed.data;
  const parts = [
    e.bounceType && `${e.bounceType} bounce${e.bounceSubType ? ` (${e.bounceSubType})` : ""}`,
    e.diagnosticCode,
    e.complaintFeedbackType && `feedback: ${e.complaintFeedbackType}`,
    e.complaintUserAgent,
  ];
  const text = parts.filter((p): p is string => Boolean(p)).join("; ");
  return text === "" ? "—" : text;
}

/** The tone of a provider event type (the type itself is always shown as text). */
const EVENT_TONES: Record<string, Tone> = {
  Delivery: "green",
  Bounce: "red",
  Complaint: "red",
  Reject: "red",
  RenderingFailure: "red",
  DeliveryDelay: "yellow",
};

/** One message: its headers, body, attachments and delivery events. */
export default async function MessagePage({ params }: { params: Promise<{ messageId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) {
    return <NoAccess title="Message" what="messages" />;
  }
  const { messageId } = await params;
  const [{ message: m }, { events }] = await readOne(messageId, (messageId) =>
    Promise.all([
      ctx.invoke(getMessage, { params: { messageId } }),
      ctx.invoke(listMessageEvents, { params: { messageId } }),
    ]),
  );
  const { inbox } = await ctx.invoke(getInbox, { params: { inboxId: m.inboxId } });
  const sender = formatSender(m.from);

  return (
    <>
      <PageHeader
        title={subjectOf(m.subject)}
        description={`${m.direction === "inbound" ? "Received by" : "Sent from"} ${inbox.address} over ${m.channel}.`}
        actions={
          <div className="flex items-center gap-3">
            <DeliveryStatusBadge status={m.deliveryStatus} />
            {m.threadId ? (
              <Link className="link text-sm" href={`/threads/${m.threadId}`}>
                Open the conversation
              </Link>
            ) : null}
          </div>
        }
      />
      <div className="space-y-6">
        <Card title="Details">
          <Details
            items={[
              ["Status", <DeliveryStatusBadge key="s" status={m.deliveryStatus} />],
              ["From", sender],
              ...(m.contactId && ctx.can("contacts:read")
                ? [
                    [
                      "Contact",
                      <Link key="ct" className="link" href={`/contacts/${m.contactId}`}>
                        Open the {m.direction === "inbound" ? "sender's" : "recipient's"} contact
                      </Link>,
                    ] as [string, ReactNode],
                  ]
                : []),
              ["To", formatAddresses(m.to)],
              ...(m.cc.length > 0 ? [["Cc", formatAddresses(m.cc)] as [string, string]] : []),
              ...(m.bcc.length > 0 ? [["Bcc", formatAddresses(m.bcc)] as [string, string]] : []),
              [
                "Direction",
                <Badge key="d" tone={m.direction === "inbound" ? "blue" : "gray"}>
                  {m.direction}
                </Badge>,
              ],
              ["Channel", m.channel],
              [
                "Inbox",
                ctx.can("inboxes:read") ? (
                  <Link key="i" className="link" href={`/inboxes/${inbox.id}`}>
                    {inbox.address}
                  </Link>
                ) : (
                  inbox.address
                ),
              ],
              ["Created", <Time key="c" value={m.createdAt} />],
              ["Received", <Time key="r" value={m.receivedAt} />],
              ...(m.scheduledAt
                ? [["Scheduled for", <Time key="sa" value={m.scheduledAt} />] as [string, ReactNode]]
                : []),
              ["Message-ID", <Mono key="mid">{m.messageId}</Mono>],
              ["In-Reply-To", m.inReplyTo ? <Mono key="irt">{m.inReplyTo}</Mono> : "—"],
              ["Id", <Mono key="id">{m.id}</Mono>],
            ]}
          />
        </Card>

        <Card title="Body">
          <MessageBody html={m.htmlBody} text={m.textBody} from={m.from.address} />
          <AttachmentList attachments={m.attachments ?? []} />
        </Card>

        <Card title="Delivery events">
          {events.length === 0 ? (
            <EmptyState
              title="No delivery events"
              description={
                m.direction === "inbound"
                  ? "Delivery events are recorded for outbound messages."
                  : "The provider has not reported an outcome yet."
              }
            />
          ) : (
            <Table head={["Event", "Recipient", "When", "Details"]} caption="Delivery events">
              {events.map((e) => (
                <tr key={e.eventId}>
                  <Td>
                    <Badge tone={EVENT_TONES[e.type] ?? "gray"}>{e.type}</Badge>
                  </Td>
                  <Td className="break-all">{e.recipient ?? "—"}</Td>
                  <Td>
                    <Time value={e.occurredAt} />
                  </Td>
                  <Td className="break-words">{eventDetails(e)}</Td>
                </tr>
              ))}
            </Table>
          )}
        </Card>
      </div>
    </>
  );
}
