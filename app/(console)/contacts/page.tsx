import Link from "next/link";
import { NewContactForm } from "@/components/console/contacts/contacts";
import { FilterForm } from "@/components/console/filter-form";
import { Field, Select } from "@/components/console/form";
import {
  Badge,
  Card,
  EmptyState,
  ErrorNotice,
  NoAccess,
  PageHeader,
  Pager,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { hrefWith, PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { listContacts as listContactsContract } from "@/lib/contacts/contracts";
import { listContacts } from "@/lib/contacts/operations";

export const metadata = { title: "Contacts — svc console" };

/** The address book: people, agents and the organization's own contact, searched by name, alias or handle. */
export default async function ContactsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("contacts:read")) return <NoAccess title="Contacts" what="contacts" />;
  const sp = await searchParams;
  const filters = { q: param(sp, "q"), kind: param(sp, "kind") };
  const cursor = param(sp, "cursor");
  const query = listContactsContract.query.safeParse({ ...filters, cursor, limit: PAGE_SIZE });
  const page = query.success
    ? await readList(() => ctx.invoke(listContacts, { query: query.data }))
    : { ok: false as const, message: "The search or kind is not valid." };
  const contacts = page.ok ? page.data.data : [];
  const anyFilter = Object.values(filters).some((v) => v !== undefined);
  return (
    <>
      <PageHeader
        title="Contacts"
        description="People and agents with their handles (email, agent-to-agent, phone, …). Sends can address a contact as @alias or contact:<id>; a contact's page shows the messages to and from their handles."
      />
      <div className="space-y-6">
        <FilterForm action="/contacts" label="Search contacts" className="flex flex-wrap items-end gap-3">
          <div className="w-72 max-w-full">
            <Field
              label="Search"
              name="q"
              type="search"
              defaultValue={filters.q ?? ""}
              placeholder="Name, alias or handle"
              autoComplete="off"
              maxLength={200}
            />
          </div>
          <div className="w-40">
            <Select label="Kind" name="kind" defaultValue={filters.kind ?? ""}>
              <option value="">Any</option>
              <option value="person">person</option>
              <option value="agent">agent</option>
              <option value="self">self</option>
            </Select>
          </div>
          {anyFilter ? (
            <Link className="link self-center text-sm" href="/contacts">
              Clear
            </Link>
          ) : null}
        </FilterForm>
        {!page.ok ? (
          <ErrorNotice>{page.message}</ErrorNotice>
        ) : contacts.length === 0 ? (
          <EmptyState
            title={filters.q ? `No contacts match “${filters.q}”` : anyFilter ? "No contacts match" : "No contacts yet"}
            description={anyFilter ? "Try another search." : "Create one below, or through POST /v1/contacts."}
          />
        ) : (
          <>
            <Table head={["Contact", "Alias", "Kind", "Added"]} caption="Contacts">
              {contacts.map((c) => (
                <tr key={c.id}>
                  <Td>
                    <Link className="link font-medium break-words" href={`/contacts/${c.id}`}>
                      {c.displayName}
                    </Link>
                  </Td>
                  <Td>
                    {c.alias ? (
                      <code className="text-xs">@{c.alias}</code>
                    ) : (
                      <span className="text-zinc-600 dark:text-zinc-400">—</span>
                    )}
                  </Td>
                  <Td>
                    <Badge tone={c.kind === "agent" ? "blue" : c.kind === "self" ? "green" : "gray"}>{c.kind}</Badge>
                  </Td>
                  <Td>
                    <Time value={c.createdAt} />
                  </Td>
                </tr>
              ))}
            </Table>
            <Pager {...pagerLinks("/contacts", filters, cursor, page.data.pagination.nextCursor)} />
          </>
        )}
        {cursor && page.ok && contacts.length === 0 ? (
          <Link className="link text-sm" href={hrefWith("/contacts", filters)}>
            Show the newest
          </Link>
        ) : null}
        {ctx.can("contacts:write") ? (
          <Card title="New contact">
            <NewContactForm />
          </Card>
        ) : null}
      </div>
    </>
  );
}
