import Link from "next/link";
import { FilterForm } from "@/components/console/filter-form";
import {
  isRunStatus,
  RUN_COLUMNS,
  RUN_STATUSES,
  runStatusText,
  WorkflowRunRows,
} from "@/components/console/observe/workflow-run";
import { Select } from "@/components/console/form";
import { EmptyState, ErrorNotice, NoAccess, PageHeader, Pager, Table } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readList } from "@/lib/console/pages";
import { workflowRuns } from "@/lib/console/reads";

export const metadata = { title: "Workflow runs — svc console" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const PAGE_SIZE = 25;

const one = (v: string | string[] | undefined) => (typeof v === "string" && v !== "" ? v : undefined);

/**
 * Recent runs of the embedded workflow executor that belong to this organization (their event names
 * it or one of its webhooks): scheduled sends, webhook deliveries and replays, with steps and errors.
 */
export default async function WorkflowsPage({ searchParams }: { searchParams: SearchParams }) {
  const ctx = await getConsole();
  if (!ctx.can("events:read")) return <NoAccess what="workflow runs" />;
  const params = await searchParams;
  const rawStatus = one(params.status);
  const status = isRunStatus(rawStatus) ? rawStatus : undefined;
  const cursor = one(params.cursor);
  const href = (extra: { cursor?: string }) => {
    const q = new URLSearchParams();
    if (status) q.set("status", status);
    if (extra.cursor) q.set("cursor", extra.cursor);
    const s = q.toString();
    return s ? `/workflows?${s}` : "/workflows";
  };

  const read = await readList(() => workflowRuns(ctx, { limit: PAGE_SIZE, cursor, status }));
  const page = read.ok ? read.data : null;
  const problem = read.ok ? null : read.message;

  return (
    <>
      <PageHeader
        title="Workflow runs"
        description="Background work for this organization: scheduled sends, webhook deliveries and replays. Each run lists its steps, attempts and errors. Deployment-wide runs (housekeeping) are not shown."
      />
      <FilterForm action="/workflows" className="mb-6 flex flex-wrap items-end gap-3" label="Filter workflow runs">
        <div className="w-56">
          <Select label="Status" name="status" defaultValue={status ?? ""} data-testid="workflows-status-filter">
            <option value="">All statuses</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {runStatusText(s)}
              </option>
            ))}
          </Select>
        </div>
        {status ? (
          <Link className="link mb-2 text-sm" href="/workflows">
            Clear filter
          </Link>
        ) : null}
      </FilterForm>
      {rawStatus && !status ? <ErrorNotice>Unknown status “{rawStatus}”; showing every status.</ErrorNotice> : null}
      {problem ? <ErrorNotice>{problem}</ErrorNotice> : null}
      {page ? (
        page.runs.length === 0 ? (
          <EmptyState
            title={status ? `No ${status} runs` : cursor ? "No older runs" : "No workflow runs yet"}
            description="Runs start when a message is scheduled, an event is delivered to a webhook, or events are replayed."
            action={
              status || cursor ? (
                <Link className="link" href="/workflows">
                  Show all runs
                </Link>
              ) : undefined
            }
          />
        ) : (
          <>
            <Table head={RUN_COLUMNS} caption="Workflow runs, newest first">
              {page.runs.map((run) => (
                <WorkflowRunRows key={run.id} run={run} />
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
