import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import { residency } from "./residency";
import * as svc from "./service";

export const exportAuditLogs = defineOperation(c.exportAuditLogs, ({ db, principal, query }) => svc.exportAudit(db, principal, query));
export const getResidency = defineOperation(c.getResidency, ({ db }) => residency(db));
