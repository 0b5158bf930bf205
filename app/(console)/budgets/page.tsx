import { BudgetActions, SetBudgetForm } from "@/components/console/trust/budgets";
import {
  Badge,
  Card,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  Table,
  Td,
  Time,
  UsageBar,
} from "@/components/console/ui";
import { listAgents } from "@/lib/agents/operations";
import { listApiKeys } from "@/lib/api-keys/operations";
import { brokenLimit } from "@/lib/budgets/enforce";
import { listBudgets } from "@/lib/budgets/operations";
import { getConsole } from "@/lib/console/context";

export const metadata = { title: "Budgets — svc console" };

const LIMIT_WORDS = {
  maxSendsPerDay: "recipients per day reached",
  maxNewRecipientsPerHour: "recipients per hour reached",
  hardStopOnComplaint: "stopped: the account has a complaint",
  maxSpendPerDayCents: "paid spend per day reached",
  unevaluable: "limits unreadable: sends refused",
} as const;

/** Budgets: fail-closed ceilings for the account, one API key or one agent, with their usage now. */
export default async function BudgetsPage() {
  const ctx = await getConsole();
  if (!ctx.can("budgets:read")) return <NoAccess title="Budgets" what="budgets" />;
  const [{ budgets }, keys, agents] = await Promise.all([
    ctx.invoke(listBudgets),
    ctx.can("keys:read") ? ctx.invoke(listApiKeys).then((r) => r.apiKeys) : null,
    ctx.can("agents:read") ? ctx.invoke(listAgents, { query: { limit: 100 } }).then((r) => r.agents) : null,
  ]);
  const keyName = new Map((keys ?? []).map((k) => [k.id, k.name]));
  const agentName = new Map((agents ?? []).map((a) => [a.agentId, a.display]));
  const subject = (b: (typeof budgets)[number]) =>
    b.scope === "account"
      ? "the account"
      : b.scope === "key"
        ? `API key ${keyName.get(b.scopeId ?? "") ?? b.scopeId}`
        : `agent ${agentName.get(b.scopeId ?? "") ?? keyName.get(b.scopeId ?? "") ?? b.scopeId}`;
  const canWrite = ctx.can("budgets:write");
  return (
    <>
      <PageHeader
        title="Budgets"
        description="Ceilings on sending for the whole account, one API key or one agent, checked on every send and fail-closed: a send over an enforced budget is refused (429 budget_exceeded) and emits budget.tripped."
      />
      <div className="space-y-6">
        {budgets.length === 0 ? (
          <EmptyState
            title="No budgets yet"
            description={
              canWrite ? "Set one below: sends are not limited until you do." : "An owner or admin can set one."
            }
          />
        ) : (
          <Table
            head={[
              "Applies to",
              "State",
              "Usage",
              "Updated",
              <span key="a" className="sr-only">
                Actions
              </span>,
            ]}
            caption="Budgets"
          >
            {budgets.map((b) => {
              const label = subject(b);
              const broken = brokenLimit(b.limits, b.usage, 1);
              const spendCap = b.limits.maxSpendPerDayCents;
              const spendReached = spendCap !== null && b.usage.spentLast24hCents >= spendCap;
              const tripped = broken?.limit ?? (spendReached ? "maxSpendPerDayCents" : null);
              const l = b.limits;
              return (
                <tr key={b.id} data-testid="budget-row">
                  <Td className="max-w-xs">
                    <span className="block font-medium">{label.charAt(0).toUpperCase() + label.slice(1)}</span>
                    {b.scopeId ? <Mono>{b.scopeId}</Mono> : null}
                  </Td>
                  <Td>
                    {!b.enabled ? (
                      <Badge tone="gray">not enforced</Badge>
                    ) : tripped ? (
                      <Badge tone="red">tripped</Badge>
                    ) : (
                      <Badge tone="green">within limits</Badge>
                    )}
                    {tripped ? (
                      <span className="block text-xs text-zinc-600 dark:text-zinc-400">{LIMIT_WORDS[tripped]}</span>
                    ) : null}
                  </Td>
                  <Td className="min-w-48 space-y-2">
                    {l.maxSendsPerDay !== null ? (
                      <UsageBar
                        label="Last 24 hours"
                        used={b.usage.sendsLast24h}
                        limit={l.maxSendsPerDay}
                        unit="recipients"
                        over={tripped === "maxSendsPerDay"}
                      />
                    ) : null}
                    {l.maxNewRecipientsPerHour !== null ? (
                      <UsageBar
                        label="Last hour"
                        used={b.usage.newRecipientsLastHour}
                        limit={l.maxNewRecipientsPerHour}
                        unit="recipients"
                        over={tripped === "maxNewRecipientsPerHour"}
                      />
                    ) : null}
                    {spendCap !== null ? (
                      <UsageBar
                        label="Paid, last 24 hours"
                        used={b.usage.spentLast24hCents}
                        limit={spendCap}
                        unit="cents"
                        over={spendReached}
                      />
                    ) : null}
                    {l.hardStopOnComplaint ? (
                      <p className="text-xs text-zinc-600 dark:text-zinc-400">
                        Stops on a complaint: {b.usage.accountHasComplaint ? "the account has one" : "none so far"}
                      </p>
                    ) : null}
                  </Td>
                  <Td>
                    <Time value={b.updatedAt} />
                  </Td>
                  <Td>{canWrite ? <BudgetActions budget={b} label={label} /> : null}</Td>
                </tr>
              );
            })}
          </Table>
        )}
        {canWrite ? (
          <Card title="Set a budget">
            <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
              Pick a scope to edit its budget: the fields start from its current limits, and saving changes only the
              fields you change (the others keep their value; a limit you empty is removed). Usage counts every
              recipient of each send.
            </p>
            <SetBudgetForm
              budgets={budgets.map((b) => ({
                scope: b.scope,
                scopeId: b.scopeId,
                enabled: b.enabled,
                limits: b.limits,
              }))}
              keys={
                keys
                  ?.filter((k) => k.status === "active")
                  .map((k) => ({ id: k.id, label: `${k.name} (${k.prefix}…)` })) ?? null
              }
              agents={
                agents
                  ?.filter((a) => a.status !== "revoked")
                  .map((a) => ({ id: a.agentId, label: `${a.display} (${a.agentId})` })) ?? null
              }
            />
          </Card>
        ) : null}
      </div>
    </>
  );
}
