import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "agents", tag: "Agents", operations: operationsOf(operations) });
