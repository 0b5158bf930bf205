import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "webhooks", tag: "Webhooks", operations: operationsOf(operations) });
