import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { rotateWebhookSecret } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.rotateWebhookSecret, ({ db, principal, params }) => rotateWebhookSecret(db, principal, params.webhookId)));
