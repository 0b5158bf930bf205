import { eventType, Inngest, staticSchema } from "inngest";
import { inngestClientOptions } from "@/lib/workflows/config";

/**
 * The app's Inngest client. In embedded mode it points at this app's own executor endpoints; with
 * INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY it talks to Inngest. The calls are the same.
 */
export const inngest = new Inngest({ id: "svc", ...inngestClientOptions() });

/** Typed events of the product. Each later capability adds its events here. */
export const events = {
  housekeepingRequested: eventType("svc/housekeeping.requested", { schema: staticSchema<{ reason?: string }>() }),
  messageScheduled: eventType("svc/message.scheduled", { schema: staticSchema<{ messageId: string; orgId: string; sendAt: string }>() }),
  messageCanceled: eventType("svc/message.canceled", { schema: staticSchema<{ messageId: string }>() }),
  webhookReplay: eventType("svc/webhook.replay", { schema: staticSchema<{ webhookId: string; eventIds: string[] }>() }),
  objectScanRequested: eventType("svc/object.scan.requested", { schema: staticSchema<{ objectId: string; orgId: string }>() }),
  fanoutRequested: eventType("svc/fanout.requested", { schema: staticSchema<{ fanoutId: string }>() }),
  fanoutChunk: eventType("svc/fanout.chunk", { schema: staticSchema<{ fanoutId: string; chunk: number; after: string | null; last: string }>() }),
  complianceJobRequested: eventType("svc/compliance.job.requested", { schema: staticSchema<{ jobId: string; orgId: string }>() }),
  webhookDeliver: eventType("svc/webhook.deliver", { schema: staticSchema<{ webhookId: string; eventId: string; replay?: boolean }>() }),
};
