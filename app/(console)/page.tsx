import Link from "next/link";
import { Stat } from "@/components/console/observe/overview-charts";
import { VolumeChart } from "@/components/console/observe/volume-chart";
import { Card, EmptyState, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { isVolumeRange, VOLUME_RANGES, type VolumeRange, WINDOW_DAYS } from "@/lib/console/overview";
import { param, type SearchParams } from "@/lib/console/pages";
import { deliveryVolume, overview } from "@/lib/console/reads";

export const metadata = { title: "Overview — svc console" };

const dash = <span className="text-zinc-600 dark:text-zinc-400">—</span>;

/** Links that switch the volume chart's range (`?range=`); the current one is marked. */
function RangeSwitch({ current }: { current: VolumeRange }) {
  return (
    <nav aria-label="Chart range" className="flex rounded-md border border-zinc-300 p-0.5 text-sm dark:border-zinc-700">
      {Object.entries(VOLUME_RANGES).map(([range, { label }]) => (
        <Link
          key={range}
          href={range === "24h" ? "/" : `/?range=${range}`}
          scroll={false}
          aria-current={range === current ? "true" : undefined}
          aria-label={`Last ${label}`}
          className="rounded px-2.5 py-1 text-zinc-700 hover:bg-zinc-100 aria-[current]:bg-zinc-900 aria-[current]:text-white dark:text-zinc-300 dark:hover:bg-zinc-800 dark:aria-[current]:bg-zinc-100 dark:aria-[current]:text-zinc-900"
        >
          {range}
        </Link>
      ))}
    </nav>
  );
}

/** The organization at a glance: resource counts and delivery volume by outcome over 24 h, 7 d or 30 d. */
export default async function OverviewPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) return <NoAccess what="the overview" />;
  const asked = param(await searchParams, "range");
  const range: VolumeRange = isVolumeRange(asked) ? asked : "24h";
  const [data, volume] = await Promise.all([overview(ctx), deliveryVolume(ctx, range)]);
  const { counts } = data;
  const fresh = (counts.inboxes ?? 0) === 0 && data.messages.inbound + data.messages.outbound === 0;
  return (
    <>
      <PageHeader
        title="Overview"
        description={`${ctx.org.name}: resources and message traffic of the last ${WINDOW_DAYS} days.`}
      />
      <div className="space-y-6">
        {fresh ? (
          <EmptyState
            title="Welcome! Nothing has been sent or received yet"
            description="Create an inbox to get an address that sends and receives, then an API key to send from your code or agent."
            action={
              <div className="flex flex-wrap justify-center gap-3">
                {ctx.can("inboxes:write") ? (
                  <Link className="link" href="/inboxes">
                    Create an inbox
                  </Link>
                ) : null}
                {ctx.can("keys:write") ? (
                  <Link className="link" href="/api-keys">
                    Create an API key
                  </Link>
                ) : null}
                <Link className="link" href="/docs/api">
                  Read the API reference
                </Link>
              </div>
            }
          />
        ) : null}
        <dl className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6">
          <Stat label="Inboxes" value={counts.inboxes ?? dash} href="/inboxes" testId="overview-inboxes" />
          <Stat
            label={`Messages in (${WINDOW_DAYS} d)`}
            value={data.messages.inbound}
            href="/messages"
            testId="overview-messages-in"
          />
          <Stat
            label={`Messages out (${WINDOW_DAYS} d)`}
            value={data.messages.outbound}
            href="/messages"
            testId="overview-messages-out"
          />
          <Stat
            label="Domains verified"
            value={counts.domains ? counts.domains.verified : dash}
            detail={
              counts.domains ? `of ${counts.domains.custom} custom (the shared domain is always verified)` : undefined
            }
            href="/domains"
            testId="overview-domains"
          />
          <Stat
            label="Active API keys"
            value={counts.activeApiKeys ?? dash}
            detail={counts.activeApiKeys === null ? "Your role cannot see API keys" : undefined}
            href={counts.activeApiKeys === null ? undefined : "/api-keys"}
            testId="overview-api-keys"
          />
          <Stat
            label="Webhooks"
            value={counts.webhooks ? counts.webhooks.total : dash}
            detail={counts.webhooks ? `${counts.webhooks.active} active` : undefined}
            href="/webhooks"
            testId="overview-webhooks"
          />
        </dl>
        <Card title="Delivery volume" actions={<RangeSwitch current={range} />}>
          {Object.values(volume.totals).some((n) => n > 0) ? (
            <VolumeChart volume={volume} rangeLabel={VOLUME_RANGES[range].label} />
          ) : (
            <EmptyState
              title={`No outbound messages in the last ${VOLUME_RANGES[range].label}`}
              description="Messages sent from this organization's inboxes appear here by what became of them: delivered, bounced, complained, failed."
            />
          )}
        </Card>
      </div>
    </>
  );
}
