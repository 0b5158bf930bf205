import Link from "next/link";
import { NumberActions, NumberSearch, PlaceCall, requirementWords } from "@/components/console/phone/numbers";
import {
  CallStatusBadge,
  capabilityWords,
  durationWords,
  isFinalCall,
  NumberStatusBadge,
  NUMBER_TYPE_WORDS,
  usd,
} from "@/components/console/phone/words";
import { PagedList } from "@/components/console/paged-list";
import { RefreshWhile } from "@/components/console/refresh-while";
import { Card, EmptyState, Mono, NoAccess, PageHeader, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { listAgents } from "@/lib/agents/operations";
import { listInboxes } from "@/lib/inboxes/operations";
import { listPhoneCalls, listPhoneNumbers, listPhoneVoices } from "@/lib/phone/operations";

export const metadata = { title: "Phone — svc console" };

/** The organization's numbers (bind to an inbox, release), a search of the carrier's inventory to provision from, and the calls. */
export default async function PhonePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("phone:read")) return <NoAccess title="Phone" what="phone numbers and calls" />;
  const sp = await searchParams;
  const cursor = param(sp, "cursor");
  const canWrite = ctx.can("phone:write");
  const canCall = ctx.can("phone:call");
  const [numbers, inboxes, agents, voices, calls] = await Promise.all([
    ctx.invoke(listPhoneNumbers, { query: { limit: 100 } }),
    ctx.can("inboxes:read") ? ctx.invoke(listInboxes) : Promise.resolve({ inboxes: [] }),
    ctx.can("agents:read")
      ? ctx.invoke(listAgents, { query: { limit: 100, status: "active" } })
      : Promise.resolve({ agents: [] }),
    ctx.invoke(listPhoneVoices),
    readList(() => ctx.invoke(listPhoneCalls, { query: { limit: 25, ...(cursor ? { cursor } : {}) } })),
  ]);
  const address = new Map(inboxes.inboxes.map((i) => [i.id, i.address]));
  const inboxChoices = inboxes.inboxes
    .filter((i) => i.status !== "deleted")
    .map((i) => ({ id: i.id, address: i.address }));
  const agentName = new Map(agents.agents.map((a) => [a.id, a.display]));
  const agentChoices = agents.agents.map((a) => ({ id: a.id, display: a.display }));
  const voiceChoices = voices.data.map((v) => ({ voiceId: v.voiceId, name: v.name }));
  const callable = numbers.data
    .filter((n) => n.status === "active" && n.capabilities.includes("voice"))
    .map((n) => ({ id: n.id, phoneNumber: n.phoneNumber }));
  const live = calls.ok && calls.data.data.some((c) => !isFinalCall(c.status));
  return (
    <>
      <PageHeader
        title="Phone"
        description="Phone numbers for SMS and AI calls. A number bound to an inbox is that inbox's SMS connection: texts to it land in the inbox, and the inbox's SMS go out from it. Calls to a number bound to an inbox or an agent are answered by its inbound assistant."
      />
      <RefreshWhile active={live || numbers.data.some((n) => n.status === "releasing")} />
      <div className="space-y-8">
        <section aria-labelledby="numbers" className="space-y-3">
          <h2 id="numbers" className="text-base font-semibold">
            Numbers
          </h2>
          {numbers.data.length === 0 ? (
            <EmptyState
              title="No numbers yet"
              description={
                canWrite
                  ? "Search the carrier's inventory below and provision one."
                  : "An owner or admin can provision one."
              }
            />
          ) : (
            <Table
              head={["Number", "Status", "Bound to", "Capabilities", "Monthly", ...(canWrite ? [""] : [])]}
              caption="Phone numbers"
            >
              {numbers.data.map((n) => (
                <tr key={n.id} data-testid="phone-number-row">
                  <Td>
                    <Mono>{n.phoneNumber}</Mono>
                    <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                      {NUMBER_TYPE_WORDS[n.numberType]} · {n.countryCode}
                    </span>
                  </Td>
                  <Td>
                    <NumberStatusBadge status={n.status} />
                    {n.status === "pending" ? (
                      <span className="mt-1 block text-xs text-zinc-700 dark:text-zinc-300">
                        Needs: {requirementWords(n.requirements).join(" ")}
                      </span>
                    ) : null}
                  </Td>
                  <Td>
                    {n.inboxId ? (
                      <Link className="link break-all" href={`/inboxes/${n.inboxId}`}>
                        {address.get(n.inboxId) ?? "An inbox"}
                      </Link>
                    ) : null}
                    {n.agentId ? (
                      <Link className="link block break-all" href="/agents">
                        Agent {agentName.get(n.agentId) ?? ""}
                      </Link>
                    ) : null}
                    {!n.inboxId && !n.agentId ? (
                      <span className="text-zinc-600 dark:text-zinc-400">Not bound</span>
                    ) : null}
                  </Td>
                  <Td>{capabilityWords(n.capabilities)}</Td>
                  <Td>{usd(n.monthlyCostUsd)}</Td>
                  {canWrite ? (
                    <Td>
                      <NumberActions number={n} inboxes={inboxChoices} agents={agentChoices} voices={voiceChoices} />
                    </Td>
                  ) : null}
                </tr>
              ))}
            </Table>
          )}
        </section>

        {canWrite ? (
          <Card title="Find a number">
            <NumberSearch canWrite={canWrite} />
          </Card>
        ) : null}

        {canCall ? (
          <Card title="Place a call">
            <PlaceCall numbers={callable} voices={voiceChoices} />
          </Card>
        ) : null}

        <section aria-labelledby="calls" className="space-y-3">
          <h2 id="calls" className="text-base font-semibold">
            Calls
          </h2>
          <PagedList
            read={calls}
            rows={(d) => d.data}
            nextCursor={(d) => d.pagination.nextCursor}
            pagerHref={(next) => pagerLinks("/phone", {}, cursor, next)}
            empty={
              <EmptyState
                title="No calls yet"
                description="Calls placed with POST /v1/phone/calls and calls to your numbers appear here."
              />
            }
          >
            {(rows) => (
              <Table head={["To", "From", "Status", "Started", "Duration"]} caption="Calls">
                {rows.map((c) => (
                  <tr key={c.id}>
                    <Td>
                      <Link className="link font-mono" href={`/phone/calls/${c.id}`}>
                        {c.to}
                      </Link>
                      {c.direction === "inbound" ? (
                        <span className="block text-xs text-zinc-600 dark:text-zinc-400">Inbound</span>
                      ) : null}
                    </Td>
                    <Td>
                      <Mono>{c.from}</Mono>
                    </Td>
                    <Td>
                      <CallStatusBadge status={c.status} />
                    </Td>
                    <Td>
                      <Time value={c.createdAt} />
                    </Td>
                    <Td>{durationWords(c.durationSeconds)}</Td>
                  </tr>
                ))}
              </Table>
            )}
          </PagedList>
        </section>
      </div>
    </>
  );
}
