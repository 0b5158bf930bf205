import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as jobs from "./jobs";
import { residency } from "./residency";
import * as svc from "./service";

export const exportAuditLogs = defineOperation(c.exportAuditLogs, ({ db, principal, query }) =>
  svc.exportAudit(db, principal, query),
);
export const getResidency = defineOperation(c.getResidency, ({ db }) => residency(db));
export const requestErasure = defineOperation(c.requestErasure, ({ db, principal, body }) =>
  jobs.requestErasure(db, principal, body),
);
export const getErasure = defineOperation(c.getErasure, ({ db, principal, params }) =>
  jobs.getJob(db, principal, "erasure", params.jobId),
);
export const requestPurge = defineOperation(c.requestPurge, ({ db, principal, body }) =>
  jobs.requestPurge(db, principal, body),
);
export const getPurge = defineOperation(c.getPurge, ({ db, principal, params }) =>
  jobs.getJob(db, principal, "purge", params.jobId),
);
