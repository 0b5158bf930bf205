import Link from "next/link";
import { CopyButton } from "@/components/console/copy-button";
import { InboxConnections } from "@/components/console/connections";
import { inboxConnectionGroups } from "@/lib/console/connections";
import { ComposeForm, DeleteInboxForm, InboxSettingsForm } from "@/components/console/messaging/inbox-forms";
import { readOne } from "@/lib/console/pages";
import { formatAddresses, formatSender, subjectOf } from "@/components/console/messaging/format";
import {
  Badge,
  Card,
  DeliveryStatusBadge,
  Details,
  Address,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { getInbox } from "@/lib/inboxes/operations";
import { listMessages } from "@/lib/messages/operations";
import { channelLabel, INBOX_MODE_WORDS } from "@/lib/console/labels";

export const metadata = { title: "Inbox — svc console" };

/** How many of the inbox's newest messages its page lists. */
const RECENT = 10;

/** One inbox: its details, its recent messages, a compose form, its settings and delete. */
export default async function InboxPage({ params }: { params: Promise<{ inboxId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("inboxes:read")) {
    return <NoAccess title="Inbox" what="inboxes" />;
  }
  const { inboxId } = await params;
  const { inbox } = await readOne(inboxId, (id) => ctx.invoke(getInbox, { params: { inboxId: id } }));
  const deleted = inbox.status === "deleted";
  const connections = await inboxConnectionGroups(ctx, inbox.id);
  const recent = ctx.can("messages:read")
    ? (await ctx.invoke(listMessages, { query: { inboxId: inbox.id, limit: RECENT } })).messages
    : null;
  return (
    <>
      <PageHeader
        title={inbox.address}
        description={inbox.displayName ?? "An inbox of this organization."}
        actions={
          ctx.can("messages:read") ? (
            <Link className="link text-sm" href={`/threads?inboxId=${inbox.id}`}>
              View thread list
            </Link>
          ) : null
        }
      />
      <div className="space-y-6">
        <Card title="Details">
          <Details
            items={[
              [
                "Address",
                <span key="a" className="inline-flex flex-wrap items-center gap-2">
                  <Mono>{inbox.address}</Mono>
                  <CopyButton value={inbox.address} label="Copy address" />
                </span>,
              ],
              ["Display name", inbox.displayName ?? "—"],
              ["Status", <StatusBadge key="s" status={inbox.status} />],
              [
                "Mode",
                <span key="m" className="block">
                  <Badge>{INBOX_MODE_WORDS[inbox.mode].label}</Badge>{" "}
                  <span className="text-zinc-700 dark:text-zinc-300">{INBOX_MODE_WORDS[inbox.mode].description}</span>
                </span>,
              ],
              ["Agent", inbox.agent ?? "—"],
              ["Channel", channelLabel(inbox.channel)],
              ["Created", <Time key="c" value={inbox.createdAt} />],
              ["Updated", <Time key="u" value={inbox.updatedAt} />],
              ["Id", <Mono key="i">{inbox.id}</Mono>],
            ]}
          />
        </Card>

        <Card title="Verification and extraction">
          <ul className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
            {ctx.can("messages:read") ? (
              <li>
                <Link className="link" href={`/inboxes/${inbox.id}/waits`}>
                  Verification waits
                </Link>
              </li>
            ) : null}
            <li>
              <Link className="link" href={`/inboxes/${inbox.id}/schema`}>
                Extraction schema
              </Link>
            </li>
            {ctx.can("messages:read") ? (
              <li>
                <Link className="link" href={`/inboxes/${inbox.id}/quarantine`}>
                  Quarantine
                </Link>
              </li>
            ) : null}
          </ul>
        </Card>

        <Card title="Connections">
          <InboxConnections inboxId={inbox.id} groups={connections} writable={!deleted} />
        </Card>

        {recent ? (
          <Card title="Recent messages">
            {recent.length === 0 ? (
              <EmptyState title="No messages yet" description="Messages this inbox sends or receives appear here." />
            ) : (
              <>
                <Table
                  head={["Subject", "Status", "From", "To", "Created"]}
                  caption={`Recent messages of ${inbox.address}`}
                >
                  {recent.map((m) => (
                    <tr key={m.id}>
                      <Td className="max-w-xs">
                        <Link className="link break-words" href={`/messages/${m.id}`}>
                          {subjectOf(m.subject)}
                        </Link>
                      </Td>
                      <Td>
                        <DeliveryStatusBadge status={m.deliveryStatus} />
                      </Td>
                      <Td className="max-w-xs">
                        <Address value={formatSender(m.from)} />
                      </Td>
                      <Td className="max-w-xs">
                        <Address value={formatAddresses(m.to)} />
                      </Td>
                      <Td>
                        <Time value={m.createdAt} />
                      </Td>
                    </tr>
                  ))}
                </Table>
                <p className="mt-3 text-sm">
                  <Link className="link" href={`/messages?inboxId=${inbox.id}`}>
                    All messages of this inbox
                  </Link>
                </p>
              </>
            )}
          </Card>
        ) : null}

        {ctx.can("messages:send") ? (
          <Card title="Send a message">
            {inbox.status === "active" ? (
              <ComposeForm inboxId={inbox.id} from={inbox.address} />
            ) : (
              <p className="text-sm text-zinc-700 dark:text-zinc-300">
                This inbox is {inbox.status}; it neither sends nor receives.
                {inbox.status === "paused" ? " Resume it in the settings to send." : ""}
              </p>
            )}
          </Card>
        ) : null}

        {ctx.can("inboxes:write") && !deleted ? (
          <>
            <Card title="Settings">
              <InboxSettingsForm
                inbox={{
                  id: inbox.id,
                  displayName: inbox.displayName,
                  mode: inbox.mode,
                  agent: inbox.agent,
                  status: inbox.status,
                  updatedAt: inbox.updatedAt,
                }}
              />
            </Card>
            <Card title="Delete inbox" className="border-red-300 dark:border-red-900">
              <p className="mb-4 text-sm">
                The inbox stops sending and receiving, and its address cannot be used again. Its threads and messages
                stay readable.
              </p>
              <DeleteInboxForm inboxId={inbox.id} address={inbox.address} />
            </Card>
          </>
        ) : null}
      </div>
    </>
  );
}
