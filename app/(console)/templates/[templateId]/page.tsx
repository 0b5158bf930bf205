import Link from "next/link";
import { ArchiveButton, MakeCurrentButton, TemplateEditor } from "@/components/console/templates/editor";
import {
  Badge,
  Card,
  Details,
  Mono,
  NoAccess,
  PageHeader,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { type DiffLine, lineDiff } from "@/lib/console/line-diff";
import { param, readOne, type SearchParams } from "@/lib/console/pages";
import { getTemplate, getTemplateVersion, listTemplateVersions } from "@/lib/templates/operations";

export const metadata = { title: "Template — svc console" };

type Version = { source: string; subject: string | null; variables: Record<string, unknown> | null };

/** What a diff compares: the subject template, the variables schema (pretty JSON) and the source. */
function comparable(v: Version): string {
  return [
    `Subject: ${v.subject ?? "(none)"}`,
    "",
    "Variables schema:",
    v.variables ? JSON.stringify(v.variables, null, 2) : "(any)",
    "",
    "Source:",
    v.source,
  ].join("\n");
}

const DIFF_STYLE: Record<DiffLine["kind"], string> = {
  same: "",
  removed: "bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-100",
  added: "bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100",
};
const DIFF_MARK: Record<DiffLine["kind"], string> = { same: " ", removed: "−", added: "+" };

function Diff({ lines }: { lines: DiffLine[] }) {
  const changed = lines.filter((l) => l.kind !== "same").length;
  if (changed === 0) return <p className="text-sm">The two versions are identical.</p>;
  return (
    <div
      tabIndex={0}
      role="region"
      aria-label="Line diff"
      className="overflow-x-auto rounded border border-zinc-200 dark:border-zinc-800"
    >
      <pre className="min-w-max py-2 font-mono text-xs">
        {lines.map((l, i) => (
          <div key={i} className={`flex px-2 ${DIFF_STYLE[l.kind]}`}>
            <span className="w-8 shrink-0 text-right text-zinc-600 select-none dark:text-zinc-400">
              {l.oldNo ?? ""}
            </span>
            <span className="w-8 shrink-0 text-right text-zinc-600 select-none dark:text-zinc-400">
              {l.newNo ?? ""}
            </span>
            <span className="w-6 shrink-0 text-center" aria-label={l.kind === "same" ? undefined : l.kind}>
              {DIFF_MARK[l.kind]}
            </span>
            <span>{l.text}</span>
          </div>
        ))}
      </pre>
    </div>
  );
}

/**
 * A template: its details, its versions (newest first) with roll back/forward, a diff between two
 * versions (`?from=&to=`), and the editor that publishes the next version with a live preview.
 */
export default async function TemplatePage({
  params,
  searchParams,
}: {
  params: Promise<{ templateId: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const ctx = await getConsole();
  if (!ctx.can("templates:read")) return <NoAccess title="Template" what="templates" />;
  const { templateId } = await params;
  const sp = await searchParams;
  const { template, version: current } = await readOne(templateId, (id) =>
    ctx.invoke(getTemplate, { params: { idOrSlug: id } }),
  );
  const { versions } = await ctx.invoke(listTemplateVersions, { params: { idOrSlug: template.id } });
  const canWrite = ctx.can("templates:write");

  const numbers = versions.map((v) => v.version);
  const pick = (name: string, fallback: number) => {
    const n = Number(param(sp, name));
    return numbers.includes(n) ? n : fallback;
  };
  const to = pick("to", template.latestVersion);
  const from = pick("from", numbers.find((n) => n < to) ?? to);
  const read = (n: number) =>
    n === current.version
      ? Promise.resolve(current)
      : ctx.invoke(getTemplateVersion, { params: { idOrSlug: template.id, version: n } }).then((r) => r.version);
  const [fromVersion, toVersion] = versions.length > 1 ? await Promise.all([read(from), read(to)]) : [null, null];

  return (
    <>
      <PageHeader
        title={template.name}
        description={
          <>
            Slug <Mono>{template.slug}</Mono> · sends use version {template.currentVersion} unless they name one.
          </>
        }
        actions={
          canWrite && template.status === "archived" ? (
            <ArchiveButton templateId={template.id} name={template.name} archived />
          ) : null
        }
      />
      <div className="space-y-6">
        <p className="text-sm">
          <Link className="link" href="/templates">
            ← All templates
          </Link>
        </p>
        <Card title="Details">
          <Details
            items={[
              ["Status", <StatusBadge key="s" status={template.status} />],
              ["Id", <Mono key="i">{template.id}</Mono>],
              ["Current version", `v${template.currentVersion}`],
              ["Latest version", `v${template.latestVersion}`],
              ["Created", <Time key="c" value={template.createdAt} />],
              ["Archived", template.archivedAt ? <Time key="a" value={template.archivedAt} /> : "no"],
            ]}
          />
        </Card>
        <Card title="Versions">
          <Table head={["Version", "Subject", "Notes", "Published", ""]} caption="Versions, newest first">
            {versions.map((v) => (
              <tr key={v.version}>
                <Td>
                  <span className="font-medium">v{v.version}</span>{" "}
                  {v.version === template.currentVersion ? <Badge tone="green">current</Badge> : null}
                </Td>
                <Td>
                  {v.subject ? (
                    <code className="text-xs break-all">{v.subject}</code>
                  ) : (
                    <span className="text-zinc-600 dark:text-zinc-400">—</span>
                  )}
                </Td>
                <Td>{v.notes ?? <span className="text-zinc-600 dark:text-zinc-400">—</span>}</Td>
                <Td>
                  <Time value={v.createdAt} />
                </Td>
                <Td>
                  <span className="flex flex-wrap items-center gap-2">
                    {v.version > 1 ? (
                      <Link
                        className="link text-sm"
                        href={`/templates/${template.id}?from=${v.version - 1}&to=${v.version}#diff`}
                        aria-label={`Changes in version ${v.version}`}
                      >
                        Changes
                      </Link>
                    ) : null}
                    {canWrite && v.version !== template.currentVersion ? (
                      <MakeCurrentButton templateId={template.id} version={v.version} />
                    ) : null}
                  </span>
                </Td>
              </tr>
            ))}
          </Table>
        </Card>
        {fromVersion && toVersion ? (
          <Card title={`Diff: v${from} → v${to}`}>
            <div id="diff" className="space-y-3">
              <form
                method="get"
                action={`/templates/${template.id}#diff`}
                aria-label="Compare versions"
                className="flex flex-wrap items-end gap-3 text-sm"
              >
                <label className="space-y-1">
                  <span className="block font-medium">From</span>
                  <select
                    name="from"
                    defaultValue={from}
                    className="rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
                  >
                    {numbers.map((n) => (
                      <option key={n} value={n}>
                        v{n}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="space-y-1">
                  <span className="block font-medium">To</span>
                  <select
                    name="to"
                    defaultValue={to}
                    className="rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
                  >
                    {numbers.map((n) => (
                      <option key={n} value={n}>
                        v{n}
                      </option>
                    ))}
                  </select>
                </label>
                <button
                  type="submit"
                  className="rounded-md border border-zinc-300 px-3 py-1.5 font-medium dark:border-zinc-700"
                >
                  Compare
                </button>
              </form>
              <Diff lines={lineDiff(comparable(fromVersion), comparable(toVersion))} />
            </div>
          </Card>
        ) : null}
        <Card
          title={canWrite && template.status === "active" ? `Publish version ${template.latestVersion + 1}` : "Preview"}
        >
          {template.status === "archived" && canWrite ? (
            <p className="mb-3 text-sm">The template is archived: restore it to publish. The preview still works.</p>
          ) : null}
          <TemplateEditor
            templateId={template.id}
            initial={{ source: current.source, subject: current.subject, variables: current.variables }}
            canWrite={canWrite && template.status === "active"}
          />
        </Card>
        {canWrite && template.status === "active" ? (
          <Card title="Archive this template" className="border-red-300 dark:border-red-900">
            <div className="flex flex-wrap items-center justify-between gap-3">
              <p className="text-sm">Its versions stay readable; sends must then name a version. You can restore it.</p>
              <ArchiveButton templateId={template.id} name={template.name} archived={false} />
            </div>
          </Card>
        ) : null}
      </div>
    </>
  );
}
