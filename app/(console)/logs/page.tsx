import Link from "next/link";
import { FilterForm } from "@/components/console/filter-form";
import { PagedList } from "@/components/console/paged-list";
import { Field, Select } from "@/components/console/form";
import { LocalDateTimeField } from "@/components/console/local-datetime-field";
import {
  Badge,
  EmptyState,
  HttpStatusBadge,
  Mono,
  NoAccess,
  PageHeader,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { listApiKeys } from "@/lib/api-keys/operations";
import { getConsole } from "@/lib/console/context";
import { hrefWith, PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { listRequestLogs } from "@/lib/request-logs/operations";

export const metadata = { title: "Request log — svc console" };

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const STATUSES = [
  ["2xx", "Succeeded (2xx)"],
  ["4xx", "Refused (4xx)"],
  ["5xx", "Failed (5xx)"],
] as const;

/** A `since`/`until` value: an ISO instant as the form writes it; a local time typed without script (no offset) read as UTC. */
function instant(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)
    ? `${value.length === 16 ? `${value}:00` : value}Z`
    : value;
}

/** Every `/v1` and `/mcp` request of the organization, newest first, filterable by key, status, method, path and time. */
export default async function RequestLogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("account:read")) return <NoAccess title="Request log" what="the request log" />;
  const sp = await searchParams;
  const filters = {
    keyId: param(sp, "keyId"),
    status: param(sp, "status"),
    method: param(sp, "method"),
    path: param(sp, "path"),
    since: instant(param(sp, "since")),
    until: instant(param(sp, "until")),
  };
  const cursor = param(sp, "cursor");
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const [read, keys] = await Promise.all([
    readList(() =>
      ctx.invoke(listRequestLogs, {
        query: { limit: PAGE_SIZE, cursor, ...filters, method: filters.method as (typeof METHODS)[number] | undefined },
      }),
    ),
    ctx.can("keys:read") ? ctx.invoke(listApiKeys).then((r) => r.apiKeys) : Promise.resolve([]),
  ]);

  return (
    <>
      <PageHeader
        title="Request log"
        description="Every API and MCP request made in this organization, and every console form that failed (shown as the API call it makes), newest first: what was sent, what was answered and how long it took. Secrets and attachment bytes are removed from the bodies, which are cut at 16 KB. Requests are kept for a week by default (REQUEST_LOG_DAYS)."
      />
      <FilterForm
        action="/logs"
        label="Filter the request log"
        className="mb-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_1fr_2fr] lg:items-end"
      >
        <Select label="API key" name="keyId" defaultValue={filters.keyId ?? ""}>
          <option value="">Any key</option>
          {keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name} ({k.prefix})
            </option>
          ))}
          {filters.keyId && !keys.some((k) => k.id === filters.keyId) ? (
            <option value={filters.keyId}>{filters.keyId}</option>
          ) : null}
        </Select>
        <Select label="Status" name="status" defaultValue={filters.status ?? ""}>
          <option value="">Any status</option>
          {STATUSES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </Select>
        <Select label="Method" name="method" defaultValue={filters.method ?? ""}>
          <option value="">Any method</option>
          {METHODS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </Select>
        <Field
          label="Path"
          name="path"
          defaultValue={filters.path ?? ""}
          placeholder="/v1/messages, or /v1/messages* for a prefix"
          autoComplete="off"
        />
        <LocalDateTimeField label="Since (your time)" name="since" iso={filters.since} />
        <LocalDateTimeField label="Until (your time)" name="until" iso={filters.until} />
        <div className="flex items-center gap-3 lg:col-span-2">
          {filtered ? (
            <Link className="link text-sm" href="/logs">
              Clear
            </Link>
          ) : null}
        </div>
      </FilterForm>
      <PagedList
        read={read}
        rows={(d) => d.logs}
        nextCursor={(d) => d.pagination.nextCursor}
        pagerHref={(next) => pagerLinks("/logs", filters, cursor, next)}
        empty={
          <EmptyState
            title={filtered ? "No requests match these filters" : cursor ? "No older requests" : "No requests yet"}
            description={
              filtered
                ? "Clear the filters to see every request."
                : "Requests made with an API key (the API, the CLI, the SDK or MCP) and console forms that failed appear here within a second."
            }
          />
        }
      >
        {(logs) => (
          <Table head={["Time", "Request", "Status", "Caller", "Duration", ""]} caption="API requests, newest first">
            {logs.map((l) => (
              <tr key={l.id} data-testid="request-log-row">
                <Td className="whitespace-nowrap">
                  <Time value={l.createdAt} />
                </Td>
                <Td>
                  <span className="font-medium">{l.method}</span>{" "}
                  <Mono>
                    {l.path}
                    {l.query ? `?${l.query}` : ""}
                  </Mono>
                  {l.source === "mcp" ? <Badge tone="blue">MCP</Badge> : null}
                  {l.source === "console" ? <Badge tone="gray">Console form</Badge> : null}
                </Td>
                <Td>
                  <HttpStatusBadge status={l.status} />
                  {l.errorCode ? <span className="ml-2 text-xs">{l.errorCode.replace(/_/g, " ")}</span> : null}
                </Td>
                <Td>
                  <span title={l.actor}>{l.actorName ?? l.actor}</span>
                </Td>
                <Td className="tabular-nums">{l.durationMs} ms</Td>
                <Td>
                  <Link
                    className="link"
                    href={`/logs/${l.id}`}
                    aria-label={`Details of ${l.method} ${l.path} at ${l.createdAt}`}
                  >
                    Details
                  </Link>
                </Td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
      {filters.keyId ? (
        <p className="mt-4 text-sm">
          <Link className="link" href={hrefWith("/logs", { ...filters, keyId: undefined })}>
            Requests of every key
          </Link>
        </p>
      ) : null}
    </>
  );
}
