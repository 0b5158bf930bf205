import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "request-logs", tag: "Account", operations: operationsOf(operations) });
