import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "domains", tag: "Domains", operations: operationsOf(operations) });
