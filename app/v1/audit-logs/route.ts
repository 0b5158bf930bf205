import { handle, route } from "@/lib/api/kernel";
import { listAuditLogs } from "@/lib/audit/service";
import * as c from "@/lib/contracts/account";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listAuditLogs, ({ db, principal, query }) => listAuditLogs(db, principal, query)),
);
