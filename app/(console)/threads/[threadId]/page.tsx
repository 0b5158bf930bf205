import Link from "next/link";
import { formatAddresses, subjectOf } from "@/components/console/messaging/format";
import { MessageCard } from "@/components/console/messaging/message-card";
import { readOne } from "@/lib/console/pages";
import { ReplyForm } from "@/components/console/messaging/reply-form";
import { Card, EmptyState, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { getInbox } from "@/lib/inboxes/operations";
import { getThread } from "@/lib/messages/operations";
import { listEvents } from "@/lib/events/operations";
import { interactionWords } from "@/lib/console/labels";
import type { MessageTap } from "@/components/console/messaging/channel-facts";

export const metadata = { title: "Conversation — svc console" };

/** How many of the inbox's newest button taps the conversation looks through for its own. */
const TAPS_READ = 100;

/**
 * The taps on this thread's buttons (inbound `button_tap` events of the inbox, newest first), by
 * the message they concern, oldest first; none when the role cannot read the event stream.
 */
async function tapsOf(
  ctx: Awaited<ReturnType<typeof getConsole>>,
  inboxId: string,
  threadId: string,
): Promise<Map<string, MessageTap[]>> {
  const byMessage = new Map<string, MessageTap[]>();
  if (!ctx.can("events:read")) return byMessage;
  const { data } = await ctx.invoke(listEvents, {
    query: { inboxId, type: "button_tap", order: "newest", limit: TAPS_READ },
  });
  for (const e of data.toReversed()) {
    if (e.threadId !== threadId || !e.messageId) continue;
    const from = (e.data.from ?? {}) as { address?: string; name?: string | null };
    const tap: MessageTap = {
      id: e.eventId,
      at: e.occurredAt,
      who: from.name ?? from.address ?? "Someone",
      words: interactionWords(e.data.channel, e.type, e.data),
    };
    byMessage.set(e.messageId, [...(byMessage.get(e.messageId) ?? []), tap]);
  }
  return byMessage;
}

/** A thread as a conversation, oldest message first, with a reply box at the bottom. */
export default async function ThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) {
    return <NoAccess title="Conversation" what="messages" />;
  }
  const { threadId } = await params;
  const { thread } = await readOne(threadId, (threadId) => ctx.invoke(getThread, { params: { threadId } }));
  const { inbox } = await ctx.invoke(getInbox, { params: { inboxId: thread.inboxId } });
  const messages = thread.messages ?? [];
  const last = messages.at(-1);
  // The reply goes where replyAction sends it: the sender of an inbound message, the recipients of an outbound one.
  const replyTo = last ? (last.direction === "inbound" ? [last.from.address] : last.to) : [];
  const count = messages.length;
  const taps = await tapsOf(ctx, thread.inboxId, thread.id);

  return (
    <>
      <PageHeader
        title={subjectOf(thread.subject)}
        description={
          <>
            {count} {count === 1 ? "message" : "messages"} in{" "}
            {ctx.can("inboxes:read") ? (
              <Link className="link" href={`/inboxes/${inbox.id}`}>
                {inbox.address}
              </Link>
            ) : (
              inbox.address
            )}
            .
          </>
        }
      />
      <div className="space-y-4">
        {count === 0 ? (
          <EmptyState title="No messages in this thread" description="Its messages were deleted." />
        ) : (
          messages.map((m) => <MessageCard key={m.id} message={m} taps={taps.get(m.id) ?? []} />)
        )}

        {ctx.can("messages:send") && last ? (
          <Card title={`Reply to ${formatAddresses(replyTo)}`}>
            {inbox.status !== "active" ? (
              <p className="text-sm text-zinc-700 dark:text-zinc-300">
                {inbox.address} is {inbox.status}; it cannot send a reply.
              </p>
            ) : replyTo.length === 0 ? (
              <p className="text-sm text-zinc-700 dark:text-zinc-300">
                The latest message has no recipient to reply to.
              </p>
            ) : (
              <ReplyForm threadId={thread.id} from={inbox.address} to={formatAddresses(replyTo)} />
            )}
          </Card>
        ) : null}
      </div>
    </>
  );
}
