import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "providers", tag: "Providers", operations: operationsOf(operations) });
