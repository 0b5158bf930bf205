import { AgentActions, CreateAgentForm } from "@/components/console/config/agents";
import {
  Badge,
  Card,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { listAgentReputation, listAgents } from "@/lib/agents/operations";
import { getConsole } from "@/lib/console/context";

export const metadata = { title: "Agents — svc console" };

const REPUTATION_TONE = { healthy: "green", throttled: "yellow", quarantined: "red", review: "gray" } as const;
const percent = (r: number) => `${(r * 100).toFixed(r < 0.01 && r > 0 ? 2 : 1)}%`;

/** Agent passports: status, signing key, bindings and reputation; create, suspend, revoke, clear. */
export default async function AgentsPage() {
  const ctx = await getConsole();
  if (!ctx.can("agents:read")) return <NoAccess title="Agents" what="agent passports" />;
  const [{ agents }, fleet] = await Promise.all([
    ctx.invoke(listAgents, { query: { limit: 100 } }),
    ctx.invoke(listAgentReputation),
  ]);
  const reputation = new Map(fleet.agents.map((r) => [r.agentId, r]));
  const canWrite = ctx.can("agents:write");
  const t = fleet.thresholds;
  return (
    <>
      <PageHeader
        title="Agents"
        description="Agent passports: each signs the messages sent with the API keys and inboxes bound to it (X-Svc-Provenance), verifiable by anyone against the public JWKS at /v1/agents/jwks."
      />
      <div className="space-y-6">
        {agents.length === 0 ? (
          <EmptyState
            title="No agents yet"
            description={
              canWrite ? "Create one below, then bind an API key or inbox to it." : "An owner or admin can create one."
            }
          />
        ) : (
          <Table
            head={[
              "Agent",
              "Status",
              "Signing key",
              "Bound to",
              "Reputation (24 h)",
              "Created",
              <span key="a" className="sr-only">
                Actions
              </span>,
            ]}
            caption="Agent passports"
          >
            {agents.map((a) => {
              const r = reputation.get(a.agentId);
              const key = a.keys.find((k) => k.status === "active") ?? a.keys[0];
              return (
                <tr key={a.id}>
                  <Td className="max-w-xs">
                    <span className="block font-medium">{a.display}</span>
                    <Mono>{a.agentId}</Mono>
                    {a.description ? (
                      <span className="block text-xs text-zinc-600 dark:text-zinc-400">{a.description}</span>
                    ) : null}
                  </Td>
                  <Td>
                    <StatusBadge status={a.status} />
                  </Td>
                  <Td className="max-w-[12rem]">
                    {key ? (
                      <>
                        <Mono>{key.kid}</Mono>
                        <span className="block text-xs text-zinc-600 dark:text-zinc-400">Ed25519, {key.status}</span>
                      </>
                    ) : (
                      "none"
                    )}
                  </Td>
                  <Td>
                    {a.bindings.apiKeyIds.length + a.bindings.inboxIds.length === 0 ? (
                      <span className="text-zinc-600 dark:text-zinc-400">nothing</span>
                    ) : (
                      <span>
                        {a.bindings.apiKeyIds.length} API {a.bindings.apiKeyIds.length === 1 ? "key" : "keys"},{" "}
                        {a.bindings.inboxIds.length} {a.bindings.inboxIds.length === 1 ? "inbox" : "inboxes"}
                      </span>
                    )}
                  </Td>
                  <Td>
                    {r ? (
                      <>
                        <Badge tone={REPUTATION_TONE[r.state]}>{r.state}</Badge>
                        <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                          {r.window.sends} recipients · bounces {percent(r.rates.bounceRate)} · complaints{" "}
                          {percent(r.rates.complaintRate)}
                          {r.overrideLocked ? " · locked" : ""}
                        </span>
                        {r.state !== "healthy" && r.lastReason ? (
                          <span className="block text-xs text-zinc-600 dark:text-zinc-400">{r.lastReason}</span>
                        ) : null}
                      </>
                    ) : null}
                  </Td>
                  <Td>
                    <Time value={a.createdAt} />
                  </Td>
                  <Td>
                    {canWrite ? (
                      <AgentActions
                        agentId={a.agentId}
                        display={a.display}
                        status={a.status}
                        reputation={r?.state ?? null}
                      />
                    ) : null}
                  </Td>
                </tr>
              );
            })}
          </Table>
        )}
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Thresholds: throttled at {percent(t.throttleBounceRate)} bounces or {percent(t.throttleComplaintRate)}{" "}
          complaints, quarantined (sends refused) at {percent(t.quarantineBounceRate)} or{" "}
          {percent(t.quarantineComplaintRate)}, judged from {t.minSends} recipients in 24 hours. Bind keys and inboxes
          with POST /v1/agents/&#123;agentId&#125;/bind.
        </p>
        {canWrite ? (
          <Card title="Create an agent">
            <CreateAgentForm />
          </Card>
        ) : null}
      </div>
    </>
  );
}
