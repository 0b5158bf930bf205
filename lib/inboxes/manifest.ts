import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "inboxes", tag: "Inboxes", operations: operationsOf(operations) });
