import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "budgets", tag: "Budgets", operations: operationsOf(operations) });
