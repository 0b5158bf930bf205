import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getWebhook, ({ db, principal, params }) => getWebhook(db, principal, params.webhookId)),
  handle(c.updateWebhook, ({ db, principal, params, body }) => updateWebhook(db, principal, params.webhookId, body)),
  handle(c.deleteWebhook, ({ db, principal, params }) => deleteWebhook(db, principal, params.webhookId)),
);
