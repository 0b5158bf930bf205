import Link from "next/link";
import { LetterBatchUpload } from "@/components/console/letters/batch";
import { Card, NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { param, type SearchParams } from "@/lib/console/pages";
import { listLetterTemplates } from "@/lib/letters/operations";

export const metadata = { title: "Letters from a CSV — svc console" };

/** One letter template to every row of a CSV file (`POST /v1/letters/batch`), with the batch's progress and per-row errors. */
export default async function LetterBatchPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("letters:send")) return <NoAccess title="Letters from a CSV" what="sending letters" />;
  const sp = await searchParams;
  const templates = (await ctx.invoke(listLetterTemplates)).data.filter((t) => t.status === "active");
  const batchId = param(sp, "batchId");
  return (
    <>
      <PageHeader
        title="Letters from a CSV"
        description={
          <>
            One letter template to every row of a CSV file, one letter per row, each verified and priced like a single
            send.{" "}
            <Link className="link" href="/letters">
              All letters
            </Link>
          </>
        }
      />
      <Card>
        <LetterBatchUpload
          templates={templates.map((t) => ({ id: t.id, name: t.name, variables: t.variables.map((v) => v.name) }))}
          initialTemplateId={param(sp, "templateId") ?? null}
          initialBatchId={batchId && /^[0-9a-f-]{36}$/i.test(batchId) ? batchId : null}
        />
      </Card>
    </>
  );
}
