import { jcs, sha256Hex } from "@/lib/trust/jcs";

/**
 * The audit chain's row format (pure: the writer, the export and the offline verifier share it).
 *
 * An exported row (AuditExportRow) is exactly these fields, every one present (null when empty),
 * plus `prevHash` and `rowHash`:
 *   id, userId (the organization's id: the specification's account), action, createdAt (RFC 3339,
 *   milliseconds, UTC `Z`), chainSeq, resourceType, resourceId, actor, ip, metadata, agentId.
 *
 *   rowHash = lowercase hex SHA-256 of the UTF-8 bytes of  prevHash ‖ JCS(row without prevHash and rowHash)
 *
 * where `prevHash` is the predecessor's `rowHash` (`""` for chainSeq 1) and JCS is RFC 8785. The
 * hash is computed from the values exactly as they are stored and exported, when the row is
 * written, so a verifier recomputes it from the export alone.
 */
export type ChainRow = {
  id: string;
  userId: string;
  action: string;
  createdAt: string;
  chainSeq: number;
  resourceType: string | null;
  resourceId: string | null;
  actor: string | null;
  ip: string | null;
  metadata: Record<string, unknown> | null;
  agentId: string | null;
};

export type ExportRow = ChainRow & { prevHash: string; rowHash: string };

export const CHAIN_FIELDS = [
  "id",
  "userId",
  "action",
  "createdAt",
  "chainSeq",
  "resourceType",
  "resourceId",
  "actor",
  "ip",
  "metadata",
  "agentId",
] as const;

/** The hash of a row given its predecessor's hash. Any extra field on `row` is hashed too. */
export function rowHashOf(prevHash: string, row: Record<string, unknown>): string {
  const rest: Record<string, unknown> = { ...row };
  delete rest.prevHash;
  delete rest.rowHash;
  return sha256Hex(prevHash + jcs(rest));
}

export const isHash = (v: unknown): v is string => typeof v === "string" && /^[0-9a-f]{64}$/.test(v);
