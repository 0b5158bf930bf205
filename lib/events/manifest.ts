import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "events", tag: "Events", operations: operationsOf(operations) });
