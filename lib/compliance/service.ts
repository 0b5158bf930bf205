import type { DbOrTx } from "@/db";
import type { Principal } from "@/lib/auth/principal";
import { invalidRequest } from "@/lib/core/errors";
import { env, publicBaseUrl } from "@/lib/env";
import { exportAuditPage } from "./export";

export interface ExportQuery {
  from?: string;
  to?: string;
  cursor?: number;
  limit?: number;
  format: "json" | "ndjson";
}

/** `GET /v1/audit-logs/export`: one signed page of the caller's organization's chain. */
export async function exportAudit(db: DbOrTx, principal: Principal, q: ExportQuery) {
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  if (from && to && from > to) throw invalidRequest("`from` is after `to`.", "from");
  return exportAuditPage(db, {
    orgId: principal.orgId,
    from,
    to,
    cursor: q.cursor,
    limit: q.limit,
    issuer: publicBaseUrl(),
    region: env.DATA_REGION,
  });
}
