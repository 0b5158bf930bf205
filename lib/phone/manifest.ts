import { defineDomain, operationsOf } from "@/lib/core/domain";
import { billPhoneNumbers } from "./functions/bill-numbers";
import { sweepPhoneCalls } from "./functions/sweep-calls";
import * as operations from "./operations";

/**
 * Phone numbers (search, provision, bind, release), AI calls (place, list, get; the sweeper that
 * ends overdue calls), the monthly charge of numbers (`bill-phone-numbers`) and the voice
 * catalogue; SMS is the sms channel (lib/channels/sms).
 */
export default defineDomain({
  name: "phone",
  tag: "Phone",
  operations: operationsOf(operations),
  functions: [sweepPhoneCalls, billPhoneNumbers],
});
