import Link from "next/link";
import { CreateLetterTemplateForm } from "@/components/console/letters/templates";
import { Card, EmptyState, NoAccess, PageHeader, StatusBadge, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { getLetterRequirements, listLetterTemplates } from "@/lib/letters/operations";

export const metadata = { title: "Letter templates — svc console" };

/** The organization's HTML letter templates (newest first, up to 100) and a form to create one from the starter. */
export default async function LetterTemplatesPage() {
  const ctx = await getConsole();
  if (!ctx.can("letters:read")) return <NoAccess title="Letter templates" what="letter templates" />;
  const [list, requirements] = await Promise.all([ctx.invoke(listLetterTemplates), ctx.invoke(getLetterRequirements)]);
  const starter = requirements.starterTemplates[0];
  return (
    <>
      <PageHeader
        title="Letter templates"
        description={
          <>
            HTML letters with placeholders, rendered to an A4 PDF by headless Chromium and checked like any letter. The
            newest 100.{" "}
            <Link className="link" href="/letters">
              All letters
            </Link>
          </>
        }
      />
      <div className="space-y-6">
        {list.data.length === 0 ? (
          <EmptyState
            title="No letter templates yet"
            description="Create one below from the starter (a DIN 5008 letter)."
          />
        ) : (
          <Table head={["Name", "Status", "Variables", "Created", "Updated"]} caption="Letter templates">
            {list.data.map((t) => (
              <tr key={t.id}>
                <Td className="max-w-64">
                  <Link className="link break-words" href={`/letters/templates/${t.id}`}>
                    {t.name}
                  </Link>
                </Td>
                <Td>
                  <StatusBadge status={t.status} />
                </Td>
                <Td className="break-words">{t.variables.map((v) => v.name).join(", ") || "—"}</Td>
                <Td className="whitespace-nowrap">
                  <Time value={t.createdAt} />
                </Td>
                <Td className="whitespace-nowrap">
                  <Time value={t.updatedAt} />
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {ctx.can("letters:send") ? (
          <Card title="New letter template">
            <CreateLetterTemplateForm starterHtml={starter?.html ?? ""} starterVariables={starter?.variables ?? []} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
