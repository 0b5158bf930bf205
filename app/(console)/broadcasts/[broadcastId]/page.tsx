import Link from "next/link";
import { notFound } from "next/navigation";
import { BroadcastProgress } from "@/components/console/audiences/audiences";
import { Card, Details, Mono, NoAccess, PageHeader, Time } from "@/components/console/ui";
import { getBroadcast } from "@/lib/audiences/operations";
import { getConsole } from "@/lib/console/context";
import { ApiError } from "@/lib/core/errors";

export const metadata = { title: "Broadcast — svc console" };

/** A broadcast with a live progress bar (sent, failed, suppressed, pending of its members). */
export default async function BroadcastPage({ params }: { params: Promise<{ broadcastId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("audiences:read")) return <NoAccess title="Broadcast" what="broadcasts" />;
  const { broadcastId } = await params;
  const broadcast = await ctx.invoke(getBroadcast, { params: { broadcastId } }).then(
    (r) => r.broadcast,
    (err: unknown) => {
      if (err instanceof ApiError && (err.code === "resource_not_found" || err.code === "invalid_request")) notFound();
      throw err;
    },
  );
  return (
    <>
      <PageHeader
        title="Broadcast"
        description="One message per active member, delivered in the background; this page follows the progress."
      />
      <div className="space-y-6">
        <p className="text-sm">
          <Link className="link" href={`/audiences/${broadcast.audienceId}`}>
            ← The audience
          </Link>
        </p>
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
      </div>
    </>
  );
}
