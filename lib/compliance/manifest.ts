import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "compliance", tag: "Compliance", operations: operationsOf(operations) });
