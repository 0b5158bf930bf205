import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { listDeliveries } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listWebhookDeliveries, ({ db, principal, params, query }) => listDeliveries(db, principal, params.webhookId, query)),
);
