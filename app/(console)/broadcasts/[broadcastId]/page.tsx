import Link from "next/link";
import { notFound } from "next/navigation";
import { BroadcastProgress, BroadcastTestForm } from "@/components/console/audiences/audiences";
import { FilterForm } from "@/components/console/filter-form";
import { Select } from "@/components/console/form";
import { MessageBody } from "@/components/console/messaging/message-body";
import { subjectOf } from "@/components/console/messaging/format";
import {
  Address,
  Card,
  DeliveryStatusBadge,
  Details,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { BROADCAST_MESSAGES_LISTED } from "@/lib/audiences/broadcast";
import { getBroadcast } from "@/lib/audiences/operations";
import { getConsole } from "@/lib/console/context";
import { messageMoment } from "@/lib/console/message-status";
import { param, type SearchParams } from "@/lib/console/pages";
import { broadcastContent } from "@/lib/console/reads";
import { ApiError } from "@/lib/core/errors";
import { OUTBOUND_DELIVERY_STATUSES } from "@/lib/messages/delivery-status";

export const metadata = { title: "Broadcast — svc console" };

/** A broadcast: live progress, what members receive, a test send, and its members' messages by status. */
export default async function BroadcastPage({
  params,
  searchParams,
}: {
  params: Promise<{ broadcastId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const ctx = await getConsole();
  if (!ctx.can("audiences:read")) return <NoAccess title="Broadcast" what="broadcasts" />;
  const { broadcastId } = await params;
  const sp = await searchParams;
  const status = OUTBOUND_DELIVERY_STATUSES.find((s) => s === param(sp, "status"));
  const [broadcast, content] = await Promise.all([
    ctx.invoke(getBroadcast, { params: { broadcastId } }).then((r) => r.broadcast),
    broadcastContent(ctx, broadcastId, status),
  ]).catch((err: unknown) => {
    if (err instanceof ApiError && (err.code === "resource_not_found" || err.code === "invalid_request")) notFound();
    throw err;
  });
  return (
    <>
      <PageHeader
        title={subjectOf(content.subject)}
        description={
          <>
            A broadcast to{" "}
            <Link className="link" href={`/audiences/${broadcast.audienceId}`}>
              {content.audienceName ?? "its audience"}
            </Link>
            : one message per active member, delivered in the background; this page follows the progress.{" "}
            <Link className="link" href="/broadcasts">
              All broadcasts
            </Link>
          </>
        }
      />
      <div className="space-y-6">
        <Card title="Progress">
          <BroadcastProgress
            initial={{
              id: broadcast.id,
              status: broadcast.status,
              counts: broadcast.counts,
              completedAt: broadcast.completedAt,
            }}
          />
        </Card>
        <Card title="Details">
          <Details
            items={[
              ["Id", <Mono key="i">{broadcast.id}</Mono>],
              ["From", content.inboxAddress ? <Address key="f" value={content.inboxAddress} /> : "—"],
              [
                "Template",
                broadcast.template ? (
                  <Link
                    key="t"
                    className="link"
                    href={`/templates/${broadcast.template.id}`}
                  >{`version ${broadcast.template.version}`}</Link>
                ) : (
                  "—"
                ),
              ],
              ["Queued", <Time key="q" value={broadcast.createdAt} />],
              ["Completed", broadcast.completedAt ? <Time key="c" value={broadcast.completedAt} /> : "not yet"],
            ]}
          />
        </Card>
        <Card title="Preview">
          <p className="mb-3 text-sm">
            <span className="font-medium">Subject:</span> {subjectOf(content.subject)}
          </p>
          <MessageBody html={content.html} text={content.text} from={content.inboxAddress ?? "the broadcast"} />
          <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
            Rendered once when it was queued; each member&apos;s copy also carries its own unsubscribe link.
          </p>
        </Card>
        {ctx.can("messages:send") ? (
          <Card title="Send a test">
            <BroadcastTestForm broadcastId={broadcast.id} />
          </Card>
        ) : null}
        {content.messages ? (
          <Card title="Members' messages">
            <FilterForm
              action={`/broadcasts/${broadcast.id}`}
              label="Filter the members' messages"
              className="mb-3 flex flex-wrap items-end gap-3"
            >
              <div className="w-44">
                <Select label="Status" name="status" defaultValue={status ?? ""}>
                  <option value="">Any</option>
                  {OUTBOUND_DELIVERY_STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </Select>
              </div>
            </FilterForm>
            {content.messages.length === 0 ? (
              <EmptyState
                title={status ? `No ${status} messages` : "No messages yet"}
                description={status ? "Try another status." : "Members' messages appear as the broadcast is sent."}
              />
            ) : (
              <Table head={["To", "Status", "When", ""]} caption="Members' messages">
                {content.messages.map((m) => {
                  const moment = messageMoment(m);
                  return (
                    <tr key={m.id}>
                      <Td className="max-w-64">
                        <Address value={m.to.join(", ")} />
                      </Td>
                      <Td>
                        <DeliveryStatusBadge status={m.deliveryStatus} />
                      </Td>
                      <Td>
                        <span className="text-zinc-600 dark:text-zinc-400">{moment.label}</span>{" "}
                        <Time value={moment.at} />
                      </Td>
                      <Td>
                        <Link className="link" href={`/messages/${m.id}`}>
                          Message
                        </Link>
                      </Td>
                    </tr>
                  );
                })}
              </Table>
            )}
            {content.messages.length >= BROADCAST_MESSAGES_LISTED ? (
              <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
                The newest {BROADCAST_MESSAGES_LISTED} shown.
              </p>
            ) : null}
          </Card>
        ) : null}
      </div>
    </>
  );
}
