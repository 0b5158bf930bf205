import Link from "next/link";
import { DELIVERY_LOG_SIZE } from "@/components/console/config/limits";
import { WebhookLive } from "@/components/console/config/webhooks";
import { NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { env } from "@/lib/env";
import { EVENT_TYPES } from "@/lib/events/ledger";
import { getWebhook, listWebhookDeliveries } from "@/lib/webhooks/operations";

export const metadata = { title: "Webhook — svc console" };

/** One webhook endpoint: details, breaker state, actions and the live delivery log. */
export default async function WebhookPage({ params }: { params: Promise<{ webhookId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("webhooks:read")) {
    return <NoAccess title="Webhook" what="webhooks" />;
  }
  const initial = await readOne((await params).webhookId, async (id) => {
    const [{ webhook }, log] = await Promise.all([
      ctx.invoke(getWebhook, { params: { webhookId: id } }),
      ctx.invoke(listWebhookDeliveries, { params: { webhookId: id }, query: { limit: DELIVERY_LOG_SIZE } }),
    ]);
    return { webhook, deliveries: log.data, hasMore: log.pagination.hasMore };
  });
  return (
    <>
      <p className="mb-2 text-sm">
        <Link className="link" href="/webhooks">
          ← Webhooks
        </Link>
      </p>
      <PageHeader title={initial.webhook.label ?? "Webhook endpoint"} description={initial.webhook.url} />
      <WebhookLive
        initial={initial}
        canWrite={ctx.can("webhooks:write")}
        breakerThreshold={env.WEBHOOK_BREAKER_THRESHOLD}
        eventTypeCount={EVENT_TYPES.length}
        rotationHours={env.WEBHOOK_ROTATION_WINDOW_HOURS}
      />
    </>
  );
}
