import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "audit", tag: "Account", operations: operationsOf(operations) });
