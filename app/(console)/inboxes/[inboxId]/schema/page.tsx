import Link from "next/link";
import { SchemaEditor } from "@/components/console/messaging/inbox-automation";
import { Card, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { ApiError } from "@/lib/core/errors";
import { readOne } from "@/lib/console/pages";
import { getInboxSchema } from "@/lib/inbox-schemas/operations";
import { getInbox } from "@/lib/inboxes/operations";

export const metadata = { title: "Inbox schema — svc console" };

/** The inbox's extraction schema: the editor, and a test pane that runs a draft on a pasted message. */
export default async function InboxSchemaPage({ params }: { params: Promise<{ inboxId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("inboxes:read")) return <NoAccess title="Inbox schema" what="inboxes" />;
  const { inboxId } = await params;
  const { inbox } = await readOne(inboxId, (id) => ctx.invoke(getInbox, { params: { inboxId: id } }));
  // No schema yet is a 404 of the read: the editor starts empty.
  const stored = await ctx.invoke(getInboxSchema, { params: { inboxId: inbox.id } }).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === "resource_not_found") return null;
    throw err;
  });
  const writable = ctx.can("inboxes:write") && inbox.status !== "deleted";
  return (
    <>
      <PageHeader
        title="Extraction schema"
        description={`Typed fields extracted from every inbound message of ${inbox.address}.`}
        actions={
          <Link className="link text-sm" href={`/inboxes/${inbox.id}`}>
            Back to the inbox
          </Link>
        }
      />
      <Card title={stored ? "Schema" : "No schema yet"}>
        {writable ? (
          <SchemaEditor
            inboxId={inbox.id}
            writable={writable}
            initial={
              stored
                ? {
                    schema: stored.schema,
                    onValidationError: stored.onValidationError,
                    extractionHint: stored.extractionHint,
                  }
                : null
            }
          />
        ) : stored ? (
          <pre className="overflow-x-auto text-xs">{JSON.stringify(stored.schema, null, 2)}</pre>
        ) : (
          <p className="text-sm">This inbox has no extraction schema.</p>
        )}
      </Card>
    </>
  );
}
