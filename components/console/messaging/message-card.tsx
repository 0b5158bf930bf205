import Link from "next/link";
import type { OperationOutput } from "@/lib/core/operation";
import type { getThread } from "@/lib/messages/operations";
import { Badge, StatusBadge, Time } from "../ui";
import { AttachmentList } from "./attachments";
import { formatAddresses, formatSender } from "./format";
import { MessageBody } from "./message-body";

/** One message of a conversation, with its bodies and attachments. */
export type ConversationMessage = NonNullable<OperationOutput<typeof getThread>["thread"]["messages"]>[number];

/** A message in the conversation view: who, to whom, when, its status, body and attachments. */
export function MessageCard({ message }: { message: ConversationMessage }) {
  const sender = formatSender(message.from);
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
          <Badge tone={message.direction === "inbound" ? "blue" : "gray"}>{message.direction}</Badge>
          <StatusBadge status={message.status} />
          <Time value={message.createdAt} />
          <Link className="link" href={`/messages/${message.id}`}>
            Message details
          </Link>
        </div>
      </header>
      <MessageBody html={message.htmlBody} text={message.textBody} from={message.from.address} />
      <AttachmentList attachments={message.attachments ?? []} />
    </article>
  );
}
