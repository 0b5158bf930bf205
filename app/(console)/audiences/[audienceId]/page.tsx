import Link from "next/link";
import {
  AddMemberForm,
  BroadcastForm,
  CsvImport,
  DeleteAudienceButton,
  RemoveMemberButton,
} from "@/components/console/audiences/audiences";
import {
  Address,
  Card,
  Details,
  EmptyState,
  ErrorNotice,
  Mono,
  NoAccess,
  PageHeader,
  Pager,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getAudience } from "@/lib/audiences/operations";
import { getConsole } from "@/lib/console/context";
import { PAGE_SIZE, pagerLinks, param, readList, readOne, type SearchParams } from "@/lib/console/pages";
import { listInboxes } from "@/lib/inboxes/operations";
import { listTemplates } from "@/lib/templates/operations";

export const metadata = { title: "Audience — svc console" };

/** An audience: its members (paged), add one, import a CSV, remove, and send a broadcast. */
export default async function AudiencePage({
  params,
  searchParams,
}: {
  params: Promise<{ audienceId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const ctx = await getConsole();
  if (!ctx.can("audiences:read")) return <NoAccess title="Audience" what="audiences" />;
  const { audienceId } = await params;
  const sp = await searchParams;
  const cursor = param(sp, "cursor");
  const { list } = await readOne(audienceId, (id) =>
    ctx.invoke(getAudience, { params: { audienceId: id }, query: { limit: 1 } }),
  );
  const page = await readList(() =>
    ctx.invoke(getAudience, {
      params: { audienceId: list.id },
      query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) },
    }),
  );
  const canWrite = ctx.can("audiences:write");
  const [inboxes, templates] = canWrite
    ? await Promise.all([
        ctx.can("inboxes:read")
          ? ctx.invoke(listInboxes).then((r) => r.inboxes.filter((i) => i.status === "active"))
          : Promise.resolve([]),
        ctx.can("templates:read")
          ? ctx.invoke(listTemplates, { query: { limit: 100, status: "active" } }).then((r) => r.templates)
          : Promise.resolve([]),
      ])
    : [[], []];
  return (
    <>
      <PageHeader title={list.name} description={list.description ?? undefined} />
      <div className="space-y-6">
        <p className="text-sm">
          <Link className="link" href="/audiences">
            ← All audiences
          </Link>
        </p>
        <Card title="Details">
          <Details
            items={[
              ["Members", list.memberCount?.toLocaleString() ?? "—"],
              ["Id", <Mono key="i">{list.id}</Mono>],
              ["Created", <Time key="c" value={list.createdAt} />],
            ]}
          />
        </Card>
        {canWrite ? (
          <Card title="Send broadcast">
            <BroadcastForm
              audienceId={list.id}
              inboxes={inboxes.map((i) => ({ id: i.id, address: i.address }))}
              templates={templates.map((t) => ({ id: t.id, name: t.name, slug: t.slug }))}
            />
          </Card>
        ) : null}
        {canWrite ? (
          <Card title="Add members">
            <div className="space-y-6">
              <AddMemberForm audienceId={list.id} />
              <div>
                <h3 className="mb-2 text-sm font-semibold">Import a CSV</h3>
                <CsvImport audienceId={list.id} />
              </div>
            </div>
          </Card>
        ) : null}
        <Card title="Members">
          {!page.ok ? (
            <ErrorNotice>{page.message}</ErrorNotice>
          ) : page.data.members.length === 0 ? (
            <EmptyState
              title={cursor ? "No more members" : "No members yet"}
              description={canWrite && !cursor ? "Add one above or import a CSV." : undefined}
            />
          ) : (
            <>
              <Table head={["Email", "Name", "Status", "Source", "Added", ""]} caption="Members">
                {page.data.members.map((m) => (
                  <tr key={m.id}>
                    <Td className="max-w-xs">
                      {m.contactId ? (
                        <Link className="link block" href={`/contacts/${m.contactId}`}>
                          <Address value={m.email} />
                        </Link>
                      ) : (
                        <Address value={m.email} />
                      )}
                    </Td>
                    <Td>{m.name ?? "—"}</Td>
                    <Td>
                      <StatusBadge status={m.status} />
                    </Td>
                    <Td>{m.source}</Td>
                    <Td>
                      <Time value={m.createdAt} />
                    </Td>
                    <Td>
                      {canWrite ? <RemoveMemberButton audienceId={list.id} memberId={m.id} email={m.email} /> : null}
                    </Td>
                  </tr>
                ))}
              </Table>
              <Pager {...pagerLinks(`/audiences/${list.id}`, {}, cursor, page.data.pagination.nextCursor)} />
            </>
          )}
        </Card>
        {canWrite ? (
          <Card title="Delete this audience" className="border-red-300 dark:border-red-900">
            <DeleteAudienceButton audienceId={list.id} name={list.name} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
