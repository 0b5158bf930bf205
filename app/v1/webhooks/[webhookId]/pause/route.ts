import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { pauseWebhook } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.pauseWebhook, ({ db, principal, params }) => pauseWebhook(db, principal, params.webhookId)));
