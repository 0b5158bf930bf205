import { z } from "zod";
import { defineContract } from "@/lib/core/contract";

export const receiveProviderEvent = defineContract({
  id: "receiveProviderEvent",
  method: "POST",
  path: "/v1/providers/{provider}/events",
  access: "public",
  tag: "Providers",
  summary: "Provider callbacks",
  description:
    "Delivery outcomes from mail providers, authenticated by the provider's own signature (no API key). `ses`: Amazon SNS HTTP/S messages carrying SES events; subscriptions are confirmed automatically.",
  params: z.strictObject({ provider: z.enum(["ses"]) }),
  // The provider's message format: its fields are the provider's, not ours to restrict.
  body: z.looseObject({ Type: z.string() }),
  idempotent: false,
  example: { Type: "Notification" },
  errors: ["not_permitted"],
  response: z.object({ received: z.literal(true), applied: z.int() }),
});
