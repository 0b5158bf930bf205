import Link from "next/link";
import type { OperationOutput } from "@/lib/core/operation";
import type { getThread } from "@/lib/messages/operations";
import { Badge, DeliveryStatusBadge, Time } from "../ui";
import { messageMoment } from "@/lib/console/message-status";
import { AttachmentList } from "./attachments";
import { formatAddresses, formatSender } from "./format";
import { MessageBody } from "./message-body";
import { ChannelFacts, type MessageTap } from "./channel-facts";
import { channelLabel, channelPresentation } from "@/lib/console/labels";

/** One message of a conversation, with its bodies and attachments. */
export type ConversationMessage = NonNullable<OperationOutput<typeof getThread>["thread"]["messages"]>[number];

/** A message in the conversation view: who, to whom, when, its status, body and attachments. */
export function MessageCard({ message, taps = [] }: { message: ConversationMessage; taps?: MessageTap[] }) {
  const sender = formatSender(message.from);
  const moment = messageMoment(message);
  return (
    <article
      aria-labelledby={`msg-${message.id}`}
      className="rounded-lg border border-zinc-200 bg-white p-5 shadow-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <header className="mb-3 flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 id={`msg-${message.id}`} className="text-base font-semibold break-words">
            {sender}
          </h2>
          <p className="text-sm break-words text-zinc-700 dark:text-zinc-300">
            To {formatAddresses(message.to)}
            {message.cc.length > 0 ? `; Cc ${formatAddresses(message.cc)}` : ""}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <Badge>{channelLabel(message.channel)}</Badge>
          <Badge tone={message.direction === "inbound" ? "blue" : "gray"}>{message.direction}</Badge>
          <DeliveryStatusBadge status={message.deliveryStatus} />
          <span>
            {moment.label} <Time value={moment.at} />
          </span>
          <Link className="link" href={`/messages/${message.id}`}>
            Message details
          </Link>
        </div>
      </header>
      <MessageBody html={message.htmlBody} text={message.textBody} from={message.from.address} />
      <AttachmentList attachments={message.attachments ?? []} />
      <ChannelFacts
        id={message.id}
        presentation={channelPresentation(message.channel, message.channelMetadata)}
        taps={taps}
      />
    </article>
  );
}
