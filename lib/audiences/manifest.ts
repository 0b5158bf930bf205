import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "audiences", tag: "Audiences", operations: operationsOf(operations) });
