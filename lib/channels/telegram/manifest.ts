import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

/** The telegram channel's operations (connecting a bot to an inbox, message actions, the voice catalog). */
export default defineDomain({ name: "telegram", tag: "Inboxes", operations: operationsOf(operations) });
