import Link from "next/link";
import { Card, HttpStatusBadge, Details, Mono, NoAccess, PageHeader, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getRequestLog } from "@/lib/request-logs/operations";

export const metadata = { title: "Request — svc console" };

/** A JSON body pretty-printed when it parses (a capped body does not: shown as stored). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Body({ title, body }: { title: string; body: string | null }) {
  return (
    <Card title={title}>
      {body ? (
        <pre
          tabIndex={0}
          className="max-h-[32rem] overflow-auto rounded bg-zinc-50 p-3 text-xs break-words whitespace-pre-wrap dark:bg-zinc-900"
        >
          {pretty(body)}
        </pre>
      ) : (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">No body.</p>
      )}
    </Card>
  );
}

/** One request of the log: who made it, what it sent and what it was answered (redacted). */
export default async function RequestLogEntryPage({ params }: { params: Promise<{ logId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("account:read")) return <NoAccess title="Request" what="the request log" />;
  const { logId } = await params;
  const l = await readOne(logId, (id) => ctx.invoke(getRequestLog, { params: { logId: id } }));
  return (
    <>
      <PageHeader
        title={`${l.method} ${l.path}`}
        description="Secrets and attachment bytes were removed before this request was stored."
      />
      <p className="mb-4 text-sm">
        <Link className="link" href="/logs">
          Back to the request log
        </Link>
      </p>
      <div className="space-y-6">
        <Card title="Request">
          <Details
            items={[
              ["Time", <Time key="t" value={l.createdAt} />],
              [
                "Status",
                <span key="s">
                  <HttpStatusBadge status={l.status} />
                  {l.errorCode ? <span className="ml-2">{l.errorCode.replace(/_/g, " ")}</span> : null}
                </span>,
              ],
              ["Query", l.query ? <Mono key="q">{l.query}</Mono> : "None"],
              [
                "Caller",
                <span key="c" title={l.actor}>
                  {l.actorName ?? l.actor}
                </span>,
              ],
              [
                "API key",
                l.keyId ? (
                  <Link key="k" className="link" href={`/logs?keyId=${l.keyId}`}>
                    {l.keyName ?? l.keyId}: all its requests
                  </Link>
                ) : (
                  "None (console session)"
                ),
              ],
              [
                "Source",
                l.source === "mcp"
                  ? "MCP tool server"
                  : l.source === "console"
                    ? "A console form (its action runs this API operation)"
                    : "REST API",
              ],
              ["Duration", `${l.durationMs} ms`],
              ["Request id", <Mono key="r">{l.requestId}</Mono>],
              ["IP", l.ip ?? "Unknown"],
            ]}
          />
        </Card>
        <Body title="Request body" body={l.requestBody} />
        <Body title="Response body" body={l.responseBody} />
      </div>
    </>
  );
}
