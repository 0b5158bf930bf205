import Link from "next/link";
import { CancelWaitButton } from "@/components/console/messaging/inbox-automation";
import { RefreshWhile } from "@/components/console/refresh-while";
import { Badge, Card, EmptyState, Mono, NoAccess, PageHeader, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getInbox } from "@/lib/inboxes/operations";
import { listVerificationWaits } from "@/lib/waits/operations";

export const metadata = { title: "Verification waits — svc console" };

const TONE = { pending: "blue", resolved: "green", expired: "gray" } as const;

/** An inbox's verification waits: status (refreshed while any is pending), outcome, cancel. */
export default async function InboxWaitsPage({ params }: { params: Promise<{ inboxId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) return <NoAccess title="Verification waits" what="messages" />;
  const { inboxId } = await params;
  const { inbox } = await readOne(inboxId, (id) => ctx.invoke(getInbox, { params: { inboxId: id } }));
  const { waits } = await ctx.invoke(listVerificationWaits, { params: { inboxId: inbox.id } });
  const pending = waits.some((w) => w.status === "pending");
  return (
    <>
      <PageHeader
        title="Verification waits"
        description={`Waits for a code or link arriving at ${inbox.address}.`}
        actions={
          <Link className="link text-sm" href={`/inboxes/${inbox.id}`}>
            Back to the inbox
          </Link>
        }
      />
      <RefreshWhile active={pending} />
      <Card title="Waits">
        {waits.length === 0 ? (
          <EmptyState
            title="No waits"
            description="Agents register waits with POST /v1/inboxes/{inboxId}/waits or the MCP tool wait_for_code."
          />
        ) : (
          <Table head={["Status", "Outcome", "Sender hint", "Created", "Expires", ""]} caption="Verification waits">
            {waits.map((w) => (
              <tr key={w.waitId}>
                <Td>
                  <Badge tone={TONE[w.status]}>{w.status}</Badge>
                </Td>
                <Td className="max-w-xs break-words">
                  {w.status === "resolved" ? (
                    <span className="block space-y-1">
                      <Mono>{w.result ?? ""}</Mono>
                      <span className="block text-xs text-zinc-700 dark:text-zinc-300">
                        {w.resultKind ?? ""} from {w.from ?? "unknown"}
                        {w.messageId ? (
                          <>
                            {" · "}
                            <Link className="link" href={`/messages/${w.messageId}`}>
                              message
                            </Link>
                          </>
                        ) : null}
                      </span>
                    </span>
                  ) : w.status === "expired" ? (
                    <span>
                      Expired <Time value={w.expiredAt} />
                    </span>
                  ) : (
                    "Waiting…"
                  )}
                </Td>
                <Td className="max-w-xs break-words">{w.fromHint ?? "any sender"}</Td>
                <Td>
                  <Time value={w.createdAt} />
                </Td>
                <Td>
                  <Time value={w.expiresAt} />
                </Td>
                <Td>{w.status === "pending" ? <CancelWaitButton waitId={w.waitId} /> : null}</Td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}
