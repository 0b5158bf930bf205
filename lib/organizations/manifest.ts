import { defineDomain, operationsOf } from "@/lib/core/domain";
import * as operations from "./operations";

export default defineDomain({
  name: "organizations",
  tag: "Organizations",
  operations: operationsOf(operations),
  permissions: ["profile:write", "members:manage", "owners:manage", "organization:delete"],
});
