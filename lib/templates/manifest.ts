import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "templates", tag: "Templates", operations: operationsOf(operations) });
