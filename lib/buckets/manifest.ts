import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "buckets", tag: "Buckets", operations: operationsOf(operations) });
