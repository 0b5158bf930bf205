import { CopyButton } from "../copy-button";
import { Mono, Td, Time } from "../ui";
import { JsonDetails } from "./json-details";

export interface AuditEntryView {
  id: string;
  action: string;
  createdAt: string;
  resourceType: string | null;
  resourceId: string | null;
  actor: string | null;
  ip: string | null;
  metadata: Record<string, unknown> | null;
}

const none = <span className="text-zinc-600 dark:text-zinc-400">—</span>;

/** A name (the id on hover, and a button that copies it), or the id itself when there is no name. */
function Named({ name, id }: { name: string | undefined; id: string }) {
  if (!name) return <Mono>{id}</Mono>;
  return (
    <span className="inline-flex max-w-full flex-wrap items-center gap-1">
      <span title={id} className="break-words" data-testid="audit-name">
        {name}
      </span>
      <CopyButton value={id} label="Copy id" />
    </span>
  );
}

/**
 * One audit entry: time, actor, action, resource, IP and the metadata collapsed. `names` (`kind:id` →
 * the key's name, the member's email, the inbox's address, …: lib/audit/names.ts) says who and what.
 */
export function AuditRow({ entry, names = new Map() }: { entry: AuditEntryView; names?: Map<string, string> }) {
  const [kind, ...rest] = (entry.actor ?? "unknown").split(":");
  const actorId = rest.join(":");
  return (
    <tr data-testid="audit-row">
      <Td>
        <Time value={entry.createdAt} />
      </Td>
      <Td>
        <span className="block text-xs text-zinc-600 dark:text-zinc-400">{kind?.replace(/_/g, " ")}</span>
        {actorId ? <Named name={names.get(entry.actor ?? "")} id={actorId} /> : <Mono>{entry.actor ?? "unknown"}</Mono>}
      </Td>
      <Td>
        <Mono>{entry.action}</Mono>
      </Td>
      <Td>
        {entry.resourceType || entry.resourceId ? (
          <>
            {entry.resourceType ? (
              <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                {entry.resourceType.replace(/_/g, " ")}
              </span>
            ) : null}
            {entry.resourceId ? (
              <Named name={names.get(`${entry.resourceType ?? ""}:${entry.resourceId}`)} id={entry.resourceId} />
            ) : null}
          </>
        ) : (
          none
        )}
      </Td>
      <Td className="font-mono text-xs">{entry.ip ?? none}</Td>
      <Td>
        {entry.metadata && Object.keys(entry.metadata).length > 0 ? (
          <JsonDetails
            value={entry.metadata}
            summary={
              <>
                Metadata<span className="sr-only"> of {entry.action}</span>
              </>
            }
          />
        ) : (
          none
        )}
      </Td>
    </tr>
  );
}
