import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { redriveWebhook } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.redriveWebhook, ({ db, principal, params }) => redriveWebhook(db, principal, params.webhookId)));
