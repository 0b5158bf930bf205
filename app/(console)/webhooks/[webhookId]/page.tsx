import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { DELIVERY_LOG_SIZE } from "@/components/console/config/limits";
import { WebhookLive } from "@/components/console/config/webhooks";
import { NoAccess, PageHeader } from "@/components/console/ui";
import { ApiError } from "@/lib/api/errors";
import { getConsole } from "@/lib/console/context";
import { env } from "@/lib/env";
import { EVENT_TYPES } from "@/lib/events/ledger";
import { getWebhook, listDeliveries } from "@/lib/webhooks/service";

export const metadata = { title: "Webhook — svc console" };

/** One webhook endpoint: details, breaker state, actions and the live delivery log. */
export default async function WebhookPage({ params }: { params: Promise<{ webhookId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("webhooks:read")) {
    return (
      <>
        <PageHeader title="Webhook" />
        <NoAccess what="webhooks" />
      </>
    );
  }
  const id = z.uuid().safeParse((await params).webhookId);
  if (!id.success) notFound();
  const initial = await Promise.all([getWebhook(ctx.db, ctx.principal, id.data), listDeliveries(ctx.db, ctx.principal, id.data, { limit: DELIVERY_LOG_SIZE })]).then(
    ([{ webhook }, log]) => ({ webhook, deliveries: log.data, hasMore: log.pagination.hasMore }),
    (err: unknown) => {
      if (err instanceof ApiError && err.code === "resource_not_found") notFound();
      throw err;
    },
  );
  return (
    <>
      <p className="mb-2 text-sm">
        <Link className="link" href="/webhooks">
          ← Webhooks
        </Link>
      </p>
      <PageHeader title={initial.webhook.label ?? "Webhook endpoint"} description={initial.webhook.url} />
      <WebhookLive initial={initial} canWrite={ctx.can("webhooks:write")} breakerThreshold={env.WEBHOOK_BREAKER_THRESHOLD} eventTypeCount={EVENT_TYPES.length} />
    </>
  );
}
