import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { resumeWebhook } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.resumeWebhook, ({ db, principal, params }) => resumeWebhook(db, principal, params.webhookId)));
