import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { testWebhook } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.testWebhook, ({ db, principal, params }) => testWebhook(db, principal, params.webhookId)));
