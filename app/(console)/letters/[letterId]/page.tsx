import Link from "next/link";
import { LetterActions } from "@/components/console/letters/letter-actions";
import { LetterModeBadge, LetterStatusBadge } from "@/components/console/letters/badges";
import { addressLines, addressSummary, dollars, isFinalLetterStatus } from "@/components/console/letters/words";
import { RefreshWhile } from "@/components/console/refresh-while";
import { Card, Details, Mono, NoAccess, PageHeader, Table, Td, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getLetter } from "@/lib/letters/operations";

export const metadata = { title: "Letter — svc console" };

function AddressBlock({ lines }: { lines: string[] }) {
  return (
    <address className="not-italic">
      {lines.map((l, i) => (
        <span key={i} className="block break-words">
          {l}
        </span>
      ))}
    </address>
  );
}

/** A letter: its status and every status it took (the timeline), price, pages, addresses, and its actions. */
export default async function LetterPage({ params }: { params: Promise<{ letterId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("letters:read")) return <NoAccess title="Letter" what="letters" />;
  const { letterId } = await params;
  const letter = await readOne(letterId, (id) => ctx.invoke(getLetter, { params: { letterId: id } }));
  const moving = letter.testMode && !isFinalLetterStatus(letter.status);
  return (
    <>
      <RefreshWhile active={moving} />
      <PageHeader
        title={`Letter to ${addressSummary(letter.to)}`}
        description={
          <>
            {letter.testMode
              ? "A test letter: verified and priced like a live one, moved by the simulated print centre, never printed nor charged."
              : "A live letter: printed and posted by the print provider."}{" "}
            <Link className="link" href="/letters">
              All letters
            </Link>
          </>
        }
      />
      <div className="space-y-6">
        <Card title="Status">
          <div className="mb-4 flex flex-wrap items-center gap-2">
            <LetterStatusBadge status={letter.status} />
            <LetterModeBadge testMode={letter.testMode} />
            {letter.failureReason ? (
              <span className="text-sm text-red-800 dark:text-red-300">{letter.failureReason}</span>
            ) : null}
          </div>
          <LetterActions
            letterId={letter.id}
            status={letter.status}
            testMode={letter.testMode}
            canSend={ctx.can("letters:send")}
          />
        </Card>
        <Card title="Timeline">
          <Table head={["Status", "When", "Why"]} caption="Every status the letter took, oldest first">
            {letter.timeline.map((t, i) => (
              <tr key={`${t.status}-${i}`} data-testid="timeline-row">
                <Td>
                  <LetterStatusBadge status={t.status} />
                </Td>
                <Td className="whitespace-nowrap">
                  <Time value={t.at} />
                </Td>
                <Td className="break-words">{t.reason ?? "—"}</Td>
              </tr>
            ))}
          </Table>
          {moving && letter.nextStepAt ? (
            <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
              Next simulated step <Time value={letter.nextStepAt} />; this page refreshes by itself.
            </p>
          ) : null}
        </Card>
        <Card title="Details">
          <Details
            items={[
              ["Id", <Mono key="id">{letter.id}</Mono>],
              ["Recipient", <AddressBlock key="to" lines={addressLines(letter.to)} />],
              ["Sender", letter.from ? <AddressBlock key="from" lines={addressLines(letter.from)} /> : "—"],
              [
                "Price",
                `${dollars(letter.priceCents)} (held under the account budget${letter.testMode ? "; released for a test letter" : ""})`,
              ],
              ["Pages", `${letter.pageCount} (${Math.max(1, Math.round(letter.sizeBytes / 1024))} KB PDF)`],
              [
                "Print",
                `${letter.print.color ? "Colour" : "Black and white"}, ${letter.print.sides}, address in the ${letter.print.addressPlacement} window`,
              ],
              ["Delivery", letter.delivery],
              ["Expected delivery", letter.expectedDeliveryDate],
              [
                "Payment slip",
                letter.payment
                  ? `EUR ${(letter.payment.amountCents / 100).toFixed(2)} to ${letter.payment.recipientName} (${letter.payment.iban.replace(/(.{4})(?=.)/g, "$1 ")})${letter.payment.reference ? `, reference ${letter.payment.reference}` : ""}: the last page, with a GiroCode`
                  : "—",
              ],
              ["Description", letter.description ?? "—"],
              ["Created", <Time key="c" value={letter.createdAt} />],
              [
                "PDF",
                "The API does not serve a sent letter's PDF; it was verified before it was accepted (POST /v1/letters/verify checks the same).",
              ],
            ]}
          />
        </Card>
      </div>
    </>
  );
}
