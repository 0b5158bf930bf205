import Link from "next/link";
import type { ReactNode } from "react";
import { AttachmentList } from "@/components/console/messaging/attachments";
import { formatAddresses, formatSender, subjectOf } from "@/components/console/messaging/format";
import { MessageBody } from "@/components/console/messaging/message-body";
import { MessageViews } from "@/components/console/messaging/message-views";
import { headerBlock } from "@/lib/console/message-headers";
import { messageStoredHeaders } from "@/lib/console/reads";
import { readOne } from "@/lib/console/pages";
import {
  Address,
  Badge,
  Card,
  Details,
  Mono,
  DeliveryStatusBadge,
  NoAccess,
  PageHeader,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { getInbox } from "@/lib/inboxes/operations";
import { messageTimeline } from "@/lib/console/message-status";
import { getMessage, listMessageEvents } from "@/lib/messages/operations";

export const metadata = { title: "Message — svc console" };

/** One message: its details, body (HTML in a sandbox, plain text, headers), attachments and timeline. */
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
  const [{ inbox }, stored] = await Promise.all([
    ctx.invoke(getInbox, { params: { inboxId: m.inboxId } }),
    messageStoredHeaders(ctx, m.id),
  ]);
  const sender = formatSender(m.from);
  const timeline = messageTimeline(m, events);

  return (
    <>
      <PageHeader
        title={subjectOf(m.subject)}
        description={`${m.direction === "inbound" ? "Received by" : "Sent from"} ${inbox.address} over ${m.channel}.`}
        actions={
          <div className="flex items-center gap-3">
            <DeliveryStatusBadge status={timeline.status} />
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
              ["Status", <DeliveryStatusBadge key="s" status={timeline.status} />],
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
              ...(timeline.moment.label !== "Created"
                ? [[timeline.moment.label, <Time key="m" value={timeline.moment.at} />] as [string, ReactNode]]
                : []),
              ["Message-ID", <Mono key="mid">{m.messageId}</Mono>],
              ["In-Reply-To", m.inReplyTo ? <Mono key="irt">{m.inReplyTo}</Mono> : "—"],
              ["Id", <Mono key="id">{m.id}</Mono>],
            ]}
          />
        </Card>

        <Card title="Body">
          <MessageViews
            html={m.htmlBody ? <MessageBody html={m.htmlBody} text={null} from={m.from.address} /> : null}
            text={m.textBody ?? null}
            headers={headerBlock(m, stored)}
          />
          <AttachmentList attachments={m.attachments ?? []} />
        </Card>

        <Card title="Timeline">
          {timeline.pending ? (
            <p className="mb-3 text-sm text-zinc-700 dark:text-zinc-300" data-testid="timeline-pending">
              {timeline.pending}
            </p>
          ) : null}
          <Table head={["Step", "Recipient", "When", "Details"]} caption="Timeline">
            {timeline.steps.map((step) => (
              <tr key={step.id} data-testid="timeline-step">
                <Td>
                  <Badge tone={step.tone}>{step.label}</Badge>
                </Td>
                <Td>{step.recipient ? <Address value={step.recipient} /> : "—"}</Td>
                <Td>
                  <Time value={step.at} />
                </Td>
                <Td className="break-words">{step.detail ?? "—"}</Td>
              </tr>
            ))}
          </Table>
        </Card>
      </div>
    </>
  );
}
