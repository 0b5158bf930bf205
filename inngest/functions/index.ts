import { complianceJob } from "./compliance-job";
import { deliverWebhook } from "./deliver-webhook";
import { fanoutChunk, fanoutOrchestrate } from "./fanout";
import { housekeeping } from "./housekeeping";
import { replayWebhook } from "./replay-webhook";
import { scanObjectFn } from "./scan-object";
import { sendScheduled } from "./send-scheduled-message";

/** Every function the app serves. */
export const functions = [housekeeping, sendScheduled, deliverWebhook, replayWebhook, scanObjectFn, fanoutOrchestrate, fanoutChunk, complianceJob];
