import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as audit from "./service";

export const listAuditLogs = defineOperation(c.listAuditLogs, ({ db, principal, query }) =>
  audit.listAuditLogs(db, principal, query),
);
