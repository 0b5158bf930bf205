import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as hooks from "./service";

export const listWebhooks = defineOperation(c.listWebhooks, ({ db, principal }) => hooks.listWebhooks(db, principal));
export const createWebhook = defineOperation(c.createWebhook, ({ db, principal, body }) =>
  hooks.createWebhook(db, principal, body),
);
export const getWebhook = defineOperation(c.getWebhook, ({ db, principal, params }) =>
  hooks.getWebhook(db, principal, params.webhookId),
);
export const updateWebhook = defineOperation(c.updateWebhook, ({ db, principal, params, body }) =>
  hooks.updateWebhook(db, principal, params.webhookId, body),
);
export const deleteWebhook = defineOperation(c.deleteWebhook, ({ db, principal, params }) =>
  hooks.deleteWebhook(db, principal, params.webhookId),
);
export const pauseWebhook = defineOperation(c.pauseWebhook, ({ db, principal, params }) =>
  hooks.pauseWebhook(db, principal, params.webhookId),
);
export const resumeWebhook = defineOperation(c.resumeWebhook, ({ db, principal, params }) =>
  hooks.resumeWebhook(db, principal, params.webhookId),
);
export const redriveWebhook = defineOperation(
  c.redriveWebhook,
  ({ db, principal, params }) => hooks.redriveWebhook(db, principal, params.webhookId),
  {
    audit: { none: "data plane: re-sends failed deliveries, each logged in the delivery log" },
  },
);
export const testWebhook = defineOperation(
  c.testWebhook,
  ({ db, principal, params }) => hooks.testWebhook(db, principal, params.webhookId),
  {
    audit: { none: "a ping: the attempt is logged in the delivery log" },
  },
);
export const rotateWebhookSecret = defineOperation(c.rotateWebhookSecret, ({ db, principal, params }) =>
  hooks.rotateWebhookSecret(db, principal, params.webhookId),
);
export const listWebhookDeliveries = defineOperation(c.listWebhookDeliveries, ({ db, principal, params, query }) =>
  hooks.listDeliveries(db, principal, params.webhookId, query),
);
