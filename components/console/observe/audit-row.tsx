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

/** One audit entry: time, actor, action, resource, IP and the metadata collapsed. */
export function AuditRow({ entry }: { entry: AuditEntryView }) {
  const [kind, ...rest] = (entry.actor ?? "unknown").split(":");
  return (
    <tr data-testid="audit-row">
      <Td>
        <Time value={entry.createdAt} />
      </Td>
      <Td>
        <span className="block text-xs text-zinc-600 dark:text-zinc-400">{kind?.replace(/_/g, " ")}</span>
        <Mono>{rest.join(":") || entry.actor || "unknown"}</Mono>
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
            {entry.resourceId ? <Mono>{entry.resourceId}</Mono> : null}
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
