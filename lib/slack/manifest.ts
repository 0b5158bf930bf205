import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "slack", tag: "Slack", operations: operationsOf(operations) });
