import Link from "next/link";
import { LetterModeBadge, LetterStatusBadge } from "@/components/console/letters/badges";
import { addressSummary, dollars, LETTER_STATUS_WORDS, LETTER_STATUSES } from "@/components/console/letters/words";
import { FilterForm } from "@/components/console/filter-form";
import { Select } from "@/components/console/form";
import { PagedList } from "@/components/console/paged-list";
import { EmptyState, NoAccess, PageHeader, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { PAGE_SIZE, pagerLinks, param, readList, type SearchParams } from "@/lib/console/pages";
import { getLetterRequirements, listLetters } from "@/lib/letters/operations";

export const metadata = { title: "Letters — svc console" };

/** The organization's letters, newest first, with their status and mode; filterable by status. */
export default async function LettersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await getConsole();
  if (!ctx.can("letters:read")) return <NoAccess title="Letters" what="letters" />;
  const sp = await searchParams;
  const status = LETTER_STATUSES.find((s) => s === param(sp, "status"));
  const cursor = param(sp, "cursor");
  const filters = { status };
  const [read, requirements] = await Promise.all([
    readList(() => ctx.invoke(listLetters, { query: { limit: PAGE_SIZE, cursor, status } })),
    ctx.invoke(getLetterRequirements),
  ]);
  return (
    <>
      <PageHeader
        title="Letters"
        description={
          requirements.printMode === "test"
            ? "Physical letters sent through the API, newest first. This deployment is in test mode: letters are verified, priced and moved through their statuses by a simulated print centre, never printed nor charged."
            : "Physical letters sent through the API, newest first. This deployment is in live mode: letters are printed and posted."
        }
        actions={
          <div className="flex flex-wrap gap-3 text-sm">
            <Link className="link" href="/letters/templates">
              Letter templates
            </Link>
            {ctx.can("letters:send") ? (
              <Link className="link" href="/letters/batch">
                Batch from CSV
              </Link>
            ) : null}
          </div>
        }
      />
      <FilterForm action="/letters" label="Filter the letters" className="mb-4 flex flex-wrap items-end gap-3">
        <div className="w-52">
          <Select label="Status" name="status" defaultValue={status ?? ""}>
            <option value="">Any</option>
            {LETTER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {LETTER_STATUS_WORDS[s]}
              </option>
            ))}
          </Select>
        </div>
        {status ? (
          <Link className="link pb-2 text-sm" href="/letters">
            Clear
          </Link>
        ) : null}
      </FilterForm>
      <PagedList
        read={read}
        rows={(d) => d.data}
        nextCursor={(d) => d.pagination.nextCursor}
        pagerHref={(next) => pagerLinks("/letters", filters, cursor, next)}
        empty={
          <EmptyState
            title={status ? `No ${LETTER_STATUS_WORDS[status].toLowerCase()} letters` : "No letters yet"}
            description={
              status
                ? "Try another status, or clear the filter."
                : "Send one with POST /v1/letters (verify it first with POST /v1/letters/verify), or send a template to many recipients from a CSV file."
            }
            action={
              status ? null : (
                <Link className="link" href="/letters/templates">
                  Open the letter templates
                </Link>
              )
            }
          />
        }
      >
        {(letters) => (
          <Table head={["Recipient", "Status", "Mode", "Pages", "Price", "Created", ""]} caption="Letters">
            {letters.map((l) => (
              <tr key={l.id} data-testid="letter-row">
                <Td className="max-w-64 break-words">{addressSummary(l.to)}</Td>
                <Td>
                  <LetterStatusBadge status={l.status} />
                </Td>
                <Td>
                  <LetterModeBadge testMode={l.testMode} />
                </Td>
                <Td className="tabular-nums">{l.pageCount}</Td>
                <Td className="tabular-nums">{dollars(l.priceCents)}</Td>
                <Td className="whitespace-nowrap">
                  <Time value={l.createdAt} />
                </Td>
                <Td>
                  <Link
                    className="link"
                    href={`/letters/${l.id}`}
                    aria-label={`Open the letter to ${addressSummary(l.to)}`}
                  >
                    Open
                  </Link>
                </Td>
              </tr>
            ))}
          </Table>
        )}
      </PagedList>
    </>
  );
}
