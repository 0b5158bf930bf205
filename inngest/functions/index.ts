import { housekeeping } from "./housekeeping";
import { sendScheduled } from "./send-scheduled-message";

/** Every function the app serves. */
export const functions = [housekeeping, sendScheduled];
