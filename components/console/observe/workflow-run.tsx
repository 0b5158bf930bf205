import { Fragment } from "react";
import type { listWorkflowRuns } from "@/lib/workflows/runs";
import { Mono, StatusBadge, Td, Time } from "../ui";
import { errorText, JsonDetails } from "./json-details";

export type RunView = Awaited<ReturnType<typeof listWorkflowRuns>>["runs"][number];
export type RunStatus = RunView["status"];

/** Every run status with what it means (a Record, so a new status fails to compile until listed). */
const RUN_STATUS_TEXT: Record<RunStatus, string> = {
  queued: "queued",
  running: "running",
  sleeping: "sleeping",
  waiting: "waiting for an event",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};
export const RUN_STATUSES = Object.keys(RUN_STATUS_TEXT) as RunStatus[];
export const runStatusText = (s: RunStatus) => RUN_STATUS_TEXT[s];
export const isRunStatus = (v: string | undefined): v is RunStatus => v !== undefined && v in RUN_STATUS_TEXT;

/** The function's own id without the app prefix the SDK adds (`svc-deliver-webhook` → `deliver-webhook`). */
const functionName = (id: string) => id.replace(/^svc-/, "");

const COLUMNS = 7;

/** A run as two rows: the summary, then its steps, wait, error and output behind a disclosure. */
export function WorkflowRunRows({ run }: { run: RunView }) {
  const error = errorText(run.error);
  const failedSteps = run.steps.filter((s) => s.status === "failed" || s.status === "errored").length;
  return (
    <Fragment>
      <tr data-testid="workflow-run" data-run-id={run.id}>
        <Td>
          <StatusBadge status={run.status} />
        </Td>
        <Td>
          <Mono>{functionName(run.functionId)}</Mono>
          <span className="block text-xs text-zinc-600 dark:text-zinc-400">{run.event.name}</span>
        </Td>
        <Td>
          <Time value={run.createdAt} />
        </Td>
        <Td>
          <Time value={run.startedAt} />
        </Td>
        <Td>
          <Time value={run.endedAt} />
          {!run.endedAt && run.waitingFor ? (
            <span className="block text-xs text-zinc-600 dark:text-zinc-400">
              {run.waitingFor.kind === "sleep" ? "sleeping until" : `waiting (${run.waitingFor.kind}) until`}{" "}
              <Time value={run.dueAt} />
            </span>
          ) : null}
        </Td>
        <Td className="tabular-nums">{run.attempt + 1}</Td>
        <Td className="tabular-nums">
          {run.steps.length}
          {failedSteps > 0 ? (
            <span className="block text-xs text-red-700 dark:text-red-400">{failedSteps} failed</span>
          ) : null}
        </Td>
      </tr>
      <tr className="bg-zinc-50/60 dark:bg-zinc-900/40">
        <Td colSpan={COLUMNS}>
          {error ? (
            <p className="mb-2 text-sm text-red-800 dark:text-red-300">
              <span className="font-medium">Error:</span> {error}
            </p>
          ) : null}
          <details>
            <summary className="cursor-pointer text-sm font-medium text-sky-800 select-none dark:text-sky-300">
              Steps ({run.steps.length}){error ? ", error" : ""} and output
              <span className="sr-only"> of run {run.id}</span>
            </summary>
            <div className="mt-3 space-y-3">
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Run <Mono>{run.id}</Mono>, event <Mono>{run.event.id}</Mono>
              </p>
              {run.steps.length === 0 ? (
                <p className="text-sm text-zinc-600 dark:text-zinc-400">No steps recorded yet.</p>
              ) : (
                <ol className="space-y-1 text-sm">
                  {run.steps.map((s, i) => {
                    const stepError = errorText(s.error);
                    return (
                      <li key={`${s.id}-${i}`} className="flex flex-wrap items-baseline gap-2">
                        <span className="text-xs text-zinc-600 tabular-nums dark:text-zinc-400">{i + 1}.</span>
                        <Mono>{s.name}</Mono>
                        <StatusBadge status={s.status} />
                        <span className="text-xs text-zinc-600 dark:text-zinc-400">
                          {s.op !== s.name ? `${s.op}, ` : ""}attempt {s.attempt + 1}, <Time value={s.at} />
                        </span>
                        {stepError ? (
                          <span className="basis-full pl-5 text-xs text-red-800 dark:text-red-300">{stepError}</span>
                        ) : null}
                      </li>
                    );
                  })}
                </ol>
              )}
              {run.error ? <JsonDetails value={run.error} summary="Error (JSON)" /> : null}
              {run.output !== null && run.output !== undefined ? (
                <JsonDetails value={run.output} summary="Output (JSON)" />
              ) : null}
            </div>
          </details>
        </Td>
      </tr>
    </Fragment>
  );
}

export const RUN_COLUMNS = ["Status", "Function / event", "Created", "Started", "Ended", "Attempt", "Steps"];
