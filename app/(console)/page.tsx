import Link from "next/link";
import { Stat } from "@/components/console/observe/overview-charts";
import { VolumeChart } from "@/components/console/observe/volume-chart";
import { Card, EmptyState, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import {
  deliveryRates,
  isVolumeRange,
  type RateView,
  VOLUME_RANGES,
  type VolumeRange,
  WINDOW_DAYS,
} from "@/lib/console/overview";
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
          title={`Last ${label}`}
          className="rounded px-2.5 py-1 text-zinc-700 hover:bg-zinc-100 aria-[current]:bg-zinc-900 aria-[current]:text-white dark:text-zinc-300 dark:hover:bg-zinc-800 dark:aria-[current]:bg-zinc-100 dark:aria-[current]:text-zinc-900"
        >
          {/* The accessible name ("Last 24h") contains the visible text, as WCAG 2.5.3 asks. */}
          <span className="sr-only">Last </span>
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
  const rates = deliveryRates(volume.totals);
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
        <Card title={`Bounce and complaint rates (${VOLUME_RANGES[range].label})`}>
          <dl className="grid gap-4 sm:grid-cols-2">
            <RateStat label="Bounce rate" view={rates.bounce} reached={rates.reached} testId="overview-bounce-rate" />
            <RateStat
              label="Complaint rate"
              view={rates.complaint}
              reached={rates.reached}
              testId="overview-complaint-rate"
            />
          </dl>
          <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">
            Of the outbound messages that reached a provider. An agent whose rate over 24 hours reaches the first
            threshold is throttled, the second quarantined (its sends refused until an operator clears it).
          </p>
        </Card>
      </div>
    </>
  );
}

const percent = (r: number) => `${(r * 100).toLocaleString("en-US", { maximumFractionDigits: 2 })}%`;

/** A rate with its count, coloured against the reputation thresholds it is shown beside. */
function RateStat({
  label,
  view,
  reached,
  testId,
}: {
  label: string;
  view: RateView;
  reached: number;
  testId: string;
}) {
  const level =
    view.rate === null
      ? null
      : view.rate >= view.quarantineAt
        ? "quarantine"
        : view.rate >= view.throttleAt
          ? "throttle"
          : null;
  return (
    <div className="rounded border border-zinc-200 p-3 dark:border-zinc-800">
      <dt className="text-xs font-semibold text-zinc-600 uppercase dark:text-zinc-300">{label}</dt>
      <dd className="mt-1 space-y-1 text-sm">
        <span
          data-testid={testId}
          className={
            level === null
              ? "text-lg font-semibold tabular-nums"
              : "text-lg font-semibold text-red-700 tabular-nums dark:text-red-400"
          }
        >
          {view.rate === null ? "—" : percent(view.rate)}
        </span>{" "}
        <span className="text-zinc-700 dark:text-zinc-300">
          {view.rate === null
            ? "nothing reached a provider"
            : `${view.count.toLocaleString("en-US")} of ${reached.toLocaleString("en-US")}`}
          {level ? ` — at or above the ${level} threshold` : ""}
        </span>
        <span className="block text-xs text-zinc-600 dark:text-zinc-400">
          Throttled at {percent(view.throttleAt)}, quarantined at {percent(view.quarantineAt)}
        </span>
      </dd>
    </div>
  );
}
