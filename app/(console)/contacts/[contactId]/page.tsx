import Link from "next/link";
import { MESSAGE_HANDLE_KINDS } from "@/lib/channels/definitions";
import {
  AddHandleForm,
  DeleteContactButton,
  EditContactForm,
  HandleActions,
} from "@/components/console/contacts/contacts";
import { formatAddresses, formatSender, subjectOf } from "@/components/console/messaging/format";
import {
  Badge,
  Card,
  DeliveryStatusBadge,
  Details,
  Address,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  Pager,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { PAGE_SIZE, pagerLinks, param, readList, readOne, type SearchParams } from "@/lib/console/pages";
import { getContact, listContactMessages } from "@/lib/contacts/operations";
import { channelLabel } from "@/lib/console/labels";

export const metadata = { title: "Contact — svc console" };

/** A contact: details (name, alias and info editable), handles (add, remove, primary per channel) and the messages to and from them. */
export default async function ContactPage({
  params,
  searchParams,
}: {
  params: Promise<{ contactId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const ctx = await getConsole();
  if (!ctx.can("contacts:read")) return <NoAccess title="Contact" what="contacts" />;
  const { contactId } = await params;
  const sp = await searchParams;
  const { contact } = await readOne(contactId, (id) => ctx.invoke(getContact, { params: { contactRef: id } }));
  const handles = contact.handles ?? [];
  const canWrite = ctx.can("contacts:write");
  const cursor = param(sp, "cursor");
  const history = ctx.can("messages:read")
    ? await readList(() =>
        ctx.invoke(listContactMessages, {
          params: { contactRef: contact.id },
          query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        }),
      )
    : null;
  return (
    <>
      <PageHeader
        title={contact.displayName}
        description={
          contact.alias ? (
            <>
              Address them as <Mono>@{contact.alias}</Mono> or <Mono>contact:{contact.id}</Mono> in a send.
            </>
          ) : (
            <>
              Address them as <Mono>contact:{contact.id}</Mono> in a send.
            </>
          )
        }
      />
      <div className="space-y-6">
        <p className="text-sm">
          <Link className="link" href="/contacts">
            ← All contacts
          </Link>
        </p>
        <Card title="Details">
          <Details
            items={[
              ["Kind", <Badge key="k">{contact.kind}</Badge>],
              ["Alias", contact.alias ? `@${contact.alias}` : "—"],
              ["Id", <Mono key="i">{contact.id}</Mono>],
              ["Info", contact.info ?? "—"],
              ["Added", <Time key="a" value={contact.createdAt} />],
            ]}
          />
        </Card>
        {canWrite ? (
          <Card title="Edit">
            <EditContactForm contact={contact} />
          </Card>
        ) : null}
        <Card title="Handles">
          <div className="space-y-4">
            {handles.length === 0 ? (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">
                No handles yet: a send to this contact needs one for its channel.
              </p>
            ) : (
              <Table head={["Channel", "Handle", "Label", "Primary", ""]} caption="Handles">
                {handles.map((h) => (
                  <tr key={h.id}>
                    <Td>{channelLabel(h.channel)}</Td>
                    <Td className="max-w-xs">
                      <Address value={h.value} />
                    </Td>
                    <Td>{h.label ?? "—"}</Td>
                    <Td>{h.isPrimary ? <Badge tone="green">primary</Badge> : "—"}</Td>
                    <Td>
                      {canWrite ? (
                        <HandleActions contactId={contact.id} handleId={h.id} value={h.value} isPrimary={h.isPrimary} />
                      ) : null}
                    </Td>
                  </tr>
                ))}
              </Table>
            )}
            {canWrite ? <AddHandleForm contactId={contact.id} /> : null}
          </div>
        </Card>
        <Card title="Messages">
          {!history ? (
            <p className="text-sm">Your role cannot read messages.</p>
          ) : !history.ok ? (
            <p className="text-sm">{history.message}</p>
          ) : history.data.messages.length === 0 ? (
            <EmptyState
              title="No messages yet"
              description={`Messages from or to this contact's ${MESSAGE_HANDLE_KINDS.map(channelLabel).join(" and ")} handles appear here.`}
            />
          ) : (
            <>
              <Table
                head={["Subject", "Status", "From", "To", "Direction", "Created"]}
                caption="Messages with this contact"
              >
                {history.data.messages.map((m) => (
                  <tr key={m.id}>
                    <Td className="max-w-xs">
                      <Link className="link break-words" href={`/messages/${m.id}`}>
                        {subjectOf(m.subject)}
                      </Link>
                    </Td>
                    <Td>
                      <DeliveryStatusBadge status={m.deliveryStatus} />
                    </Td>
                    <Td className="max-w-xs">
                      <Address value={formatSender(m.from)} />
                    </Td>
                    <Td className="max-w-xs">
                      <Address value={formatAddresses(m.to)} />
                    </Td>
                    <Td>
                      <Badge tone={m.direction === "inbound" ? "blue" : "gray"}>{m.direction}</Badge>
                    </Td>
                    <Td>
                      <Time value={m.createdAt} />
                    </Td>
                  </tr>
                ))}
              </Table>
              <Pager {...pagerLinks(`/contacts/${contact.id}`, {}, cursor, history.data.pagination.nextCursor)} />
            </>
          )}
        </Card>
        {canWrite && !contact.isSelf ? (
          <Card title="Delete this contact" className="border-red-300 dark:border-red-900">
            <DeleteContactButton contactId={contact.id} name={contact.displayName} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
