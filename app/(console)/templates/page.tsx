import Link from "next/link";
import { NewTemplateForm } from "@/components/console/templates/editor";
import {
  Card,
  EmptyState,
  ErrorNotice,
  NoAccess,
  PageHeader,
  Pager,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { listTemplates } from "@/lib/templates/operations";

export const metadata = { title: "Templates — svc console" };

/** The organization's templates, newest first, and a form that creates one (its version 1). */
export default async function TemplatesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("templates:read")) return <NoAccess title="Templates" what="templates" />;
  const sp = await searchParams;
  const cursor = param(sp, "cursor");
  const page = await readList(() =>
    ctx.invoke(listTemplates, { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } }),
  );
  const templates = page.ok ? page.data.templates : [];
  const canWrite = ctx.can("templates:write");
  return (
    <>
      <PageHeader
        title="Templates"
        description="react-email templates with immutable versions. A send names a template by id or slug and uses its current version unless it names one; publish, preview and roll back here."
      />
      <div className="space-y-6">
        {!page.ok ? <ErrorNotice>{page.message}</ErrorNotice> : null}
        {templates.length === 0 && page.ok ? (
          <EmptyState
            title="No templates yet"
            description={
              canWrite ? "Create one below: it starts from a working example you can preview and change." : undefined
            }
          />
        ) : (
          <Table head={["Template", "Slug", "Status", "Current", "Updated"]} caption="Templates">
            {templates.map((t) => (
              <tr key={t.id}>
                <Td>
                  <Link className="link font-medium" href={`/templates/${t.id}`}>
                    {t.name}
                  </Link>
                </Td>
                <Td>
                  <code className="text-xs">{t.slug}</code>
                </Td>
                <Td>
                  <StatusBadge status={t.status} />
                </Td>
                <Td>
                  v{t.currentVersion}
                  {t.latestVersion !== t.currentVersion ? (
                    <span className="text-zinc-600 dark:text-zinc-400"> (latest v{t.latestVersion})</span>
                  ) : null}
                </Td>
                <Td>
                  <Time value={t.updatedAt} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {page.ok ? <Pager {...pagerLinks("/templates", {}, cursor, page.data.pagination.nextCursor ?? null)} /> : null}
        {canWrite ? (
          <Card title="New template">
            <NewTemplateForm />
          </Card>
        ) : null}
      </div>
    </>
  );
}
