import Link from "next/link";
import { FilterForm } from "@/components/console/filter-form";
import { AuditRow } from "@/components/console/observe/audit-row";
import { Field } from "@/components/console/form";
import { EmptyState, ErrorNotice, NoAccess, PageHeader, Pager, Table } from "@/components/console/ui";
import { listAuditLogs } from "@/lib/audit/operations";
import { getConsole } from "@/lib/console/context";
import { readList } from "@/lib/console/pages";
import { auditActions, auditNames } from "@/lib/console/reads";

export const metadata = { title: "Audit log — svc console" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const PAGE_SIZE = 50;
const FILTERS = ["action", "resourceType", "resourceId"] as const;

const one = (v: string | string[] | undefined) =>
  typeof v === "string" && v.trim() !== "" ? v.trim().slice(0, 200) : undefined;

/** Control-plane actions of the organization, newest first, filterable and keyset-paginated. */
export default async function AuditLogPage({ searchParams }: { searchParams: SearchParams }) {
  const ctx = await getConsole();
  if (!ctx.can("account:read")) return <NoAccess what="the audit log" />;
  const params = await searchParams;
  const filters = {
    action: one(params.action),
    resourceType: one(params.resourceType),
    resourceId: one(params.resourceId),
  };
  const cursor = one(params.cursor);
  const filtered = FILTERS.some((k) => filters[k] !== undefined);
  const href = (extra: { cursor?: string }) => {
    const q = new URLSearchParams();
    for (const k of FILTERS) if (filters[k]) q.set(k, filters[k]);
    if (extra.cursor) q.set("cursor", extra.cursor);
    const s = q.toString();
    return s ? `/audit-log?${s}` : "/audit-log";
  };

  const read = await readList(() => ctx.invoke(listAuditLogs, { query: { limit: PAGE_SIZE, cursor, ...filters } }));
  const page = read.ok ? read.data : null;
  const problem = read.ok ? null : read.message;
  const [actions, names] = await Promise.all([auditActions(ctx), auditNames(ctx, page?.logs ?? [])]);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Who changed what in this organization: keys, domains, inboxes, webhooks, members and settings. Entries are append-only."
      />
      <FilterForm
        action="/audit-log"
        className="mb-6 grid gap-3 sm:grid-cols-[1fr_1fr_1fr_auto] sm:items-end"
        label="Filter the audit log"
      >
        <Field
          label="Action"
          name="action"
          defaultValue={filters.action ?? ""}
          list="audit-actions"
          placeholder="e.g. api_key.created"
          autoComplete="off"
          data-testid="audit-filter-action"
        />
        <datalist id="audit-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <Field
          label="Resource type"
          name="resourceType"
          defaultValue={filters.resourceType ?? ""}
          placeholder="e.g. inbox"
          autoComplete="off"
          data-testid="audit-filter-resource-type"
        />
        <Field
          label="Resource id"
          name="resourceId"
          defaultValue={filters.resourceId ?? ""}
          autoComplete="off"
          data-testid="audit-filter-resource-id"
        />
        <div className="flex items-center gap-3">
          {filtered ? (
            <Link className="link text-sm" href="/audit-log">
              Clear
            </Link>
          ) : null}
        </div>
      </FilterForm>
      {problem ? <ErrorNotice>{problem}</ErrorNotice> : null}
      {page ? (
        page.logs.length === 0 ? (
          <EmptyState
            title={filtered ? "No entries match these filters" : cursor ? "No older entries" : "No audit entries yet"}
            description={
              filtered
                ? "Filters match exactly; clear them to see every entry."
                : "Changes made with API keys or in the console are recorded here."
            }
            action={
              filtered || cursor ? (
                <Link className="link" href="/audit-log">
                  Show all entries
                </Link>
              ) : undefined
            }
          />
        ) : (
          <>
            <Table
              head={["Time", "Actor", "Action", "Resource", "IP", "Metadata"]}
              caption="Audit log entries, newest first"
            >
              {page.logs.map((log) => (
                // Key names, scopes and prefixes are for roles that may read API keys.
                <AuditRow
                  key={log.id}
                  names={names}
                  entry={log.resourceType === "api_key" && !ctx.can("keys:read") ? { ...log, metadata: null } : log}
                />
              ))}
            </Table>
            <Pager
              nextHref={page.pagination.nextCursor ? href({ cursor: page.pagination.nextCursor }) : null}
              firstHref={cursor ? href({}) : null}
            />
          </>
        )
      ) : null}
    </>
  );
}
