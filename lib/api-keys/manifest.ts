import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "api-keys", tag: "API keys", operations: operationsOf(operations) });
