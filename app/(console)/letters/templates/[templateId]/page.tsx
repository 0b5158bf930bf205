import Link from "next/link";
import { previewGeometry } from "@/components/console/letters/geometry";
import { LetterTemplateEditor } from "@/components/console/letters/templates";
import { Card, Mono, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getLetterRequirements, getLetterTemplate } from "@/lib/letters/operations";

export const metadata = { title: "Letter template — svc console" };

/** A letter template: edit its HTML and variables, and preview the rendered PDF with the checks drawn over the page. */
export default async function LetterTemplatePage({ params }: { params: Promise<{ templateId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("letters:read")) return <NoAccess title="Letter template" what="letter templates" />;
  const { templateId } = await params;
  const [template, requirements] = await Promise.all([
    readOne(templateId, (id) => ctx.invoke(getLetterTemplate, { params: { templateId: id } })),
    ctx.invoke(getLetterRequirements),
  ]);
  return (
    <>
      <PageHeader
        title={template.name}
        description={
          <>
            A letter template (<Mono>{template.id}</Mono>).{" "}
            <Link className="link" href="/letters/templates">
              All letter templates
            </Link>
            {ctx.can("letters:send") ? (
              <>
                {" · "}
                <Link className="link" href={`/letters/batch?templateId=${template.id}`}>
                  Send it to a CSV of recipients
                </Link>
              </>
            ) : null}
          </>
        }
      />
      <Card>
        <LetterTemplateEditor
          template={{
            id: template.id,
            name: template.name,
            html: template.html ?? "",
            status: template.status,
            variables: template.variables,
          }}
          geometry={previewGeometry(requirements)}
          canWrite={ctx.can("letters:send")}
        />
      </Card>
    </>
  );
}
