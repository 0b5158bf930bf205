import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

/** Messages, threads, attachments and outbound emails. */
export default defineDomain({ name: "messages", tag: "Messages", operations: operationsOf(operations) });
