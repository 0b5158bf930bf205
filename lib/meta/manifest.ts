import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "meta", tag: "Meta", operations: operationsOf(operations) });
