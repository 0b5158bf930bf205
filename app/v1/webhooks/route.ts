import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/webhooks";
import { createWebhook, listWebhooks } from "@/lib/webhooks/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listWebhooks, ({ db, principal }) => listWebhooks(db, principal)),
  handle(c.createWebhook, ({ db, principal, body }) => createWebhook(db, principal, body)),
);
