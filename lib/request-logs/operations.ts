import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as logs from "./service";

export const listRequestLogs = defineOperation(c.listRequestLogs, ({ db, principal, query }) =>
  logs.listRequestLogs(db, principal, query),
);

export const getRequestLog = defineOperation(c.getRequestLog, ({ db, principal, params }) =>
  logs.getRequestLog(db, principal, params.logId),
);
