import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({ name: "contacts", tag: "Contacts", operations: operationsOf(operations) });
