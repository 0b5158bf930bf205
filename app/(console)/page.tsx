import Link from "next/link";
import { MessagesPerDayChart, OutcomesChart, Stat } from "@/components/console/observe/overview-charts";
import { Card, EmptyState, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { CHART_DAYS, WINDOW_DAYS } from "@/lib/console/overview";
import { overview } from "@/lib/console/reads";

export const metadata = { title: "Overview — svc console" };

const dash = <span className="text-zinc-600 dark:text-zinc-400">—</span>;

/** The organization at a glance: resource counts, message traffic per day and delivery outcomes. */
export default async function OverviewPage() {
  const ctx = await getConsole();
  if (!ctx.can("messages:read")) return <NoAccess what="the overview" />;
  const data = await overview(ctx);
  const { counts } = data;
  const fresh = (counts.inboxes ?? 0) === 0 && data.messages.inbound + data.messages.outbound === 0;
  return (
    <>
      <PageHeader title="Overview" description={`${ctx.org.name}: resources and message traffic of the last ${WINDOW_DAYS} days.`} />
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
          <Stat label={`Messages in (${WINDOW_DAYS} d)`} value={data.messages.inbound} href="/messages" testId="overview-messages-in" />
          <Stat label={`Messages out (${WINDOW_DAYS} d)`} value={data.messages.outbound} href="/messages" testId="overview-messages-out" />
          <Stat
            label="Domains verified"
            value={counts.domains ? counts.domains.verified : dash}
            detail={counts.domains ? `of ${counts.domains.custom} custom (the shared domain is always verified)` : undefined}
            href="/domains"
            testId="overview-domains"
          />
          <Stat label="Active API keys" value={counts.activeApiKeys ?? dash} detail={counts.activeApiKeys === null ? "Your role cannot see API keys" : undefined} href={counts.activeApiKeys === null ? undefined : "/api-keys"} testId="overview-api-keys" />
          <Stat
            label="Webhooks"
            value={counts.webhooks ? counts.webhooks.total : dash}
            detail={counts.webhooks ? `${counts.webhooks.active} active` : undefined}
            href="/webhooks"
            testId="overview-webhooks"
          />
        </dl>
        <div className="grid gap-6 xl:grid-cols-2">
          <Card title="Messages per day">
            {data.perDay.some((d) => d.inbound + d.outbound > 0) ? (
              <MessagesPerDayChart days={data.perDay} />
            ) : (
              <EmptyState title={`No messages in the last ${CHART_DAYS} days`} description="Messages sent and received by this organization's inboxes appear here, per day." />
            )}
          </Card>
          <Card title="Delivery outcomes">
            <OutcomesChart outcomes={data.outcomes} days={WINDOW_DAYS} />
          </Card>
        </div>
      </div>
    </>
  );
}
