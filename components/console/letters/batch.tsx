"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { getLetterBatchAction, sendLetterBatchAction } from "@/lib/console/actions/letters";
import { parseCsv } from "@/lib/console/csv";
import { Button, FormError, Select, TextArea, useAction } from "../form";
import { Badge, EmptyState, ErrorNotice, Table, Td, UsageBar } from "../ui";

/**
 * A batch of letters from a CSV file, all in the browser until the send: the file is parsed here
 * (its first row is the header), its columns mapped to the recipient's address fields and the
 * template's variables, each row checked for what an address needs, then the good rows are sent to
 * `POST /v1/letters/batch` (through the console's action path) and the batch's progress is polled
 * with `GET /v1/letters/batch/{batchId}`, with each refused recipient's error beside its CSV line.
 */

const ADDRESS_FIELDS = [
  { key: "name", label: "Name", guesses: ["name", "full name", "recipient"] },
  { key: "company", label: "Company", guesses: ["company", "organization", "organisation", "firma"] },
  { key: "street", label: "Street", guesses: ["street", "strasse", "straße", "address", "address line 1"] },
  {
    key: "houseNumber",
    label: "House number",
    guesses: ["housenumber", "house number", "house_number", "number", "hausnummer"],
  },
  { key: "addressLine2", label: "Address line 2", guesses: ["addressline2", "address line 2", "address2"] },
  { key: "poBox", label: "PO box", guesses: ["pobox", "po box", "po_box", "postfach"] },
  {
    key: "postalCode",
    label: "Postal code",
    guesses: ["postalcode", "postal code", "postal_code", "zip", "postcode", "plz"],
  },
  { key: "city", label: "City", guesses: ["city", "town", "ort", "stadt"] },
  { key: "country", label: "Country (2 letters)", guesses: ["country", "country code", "land"] },
] as const;

export interface BatchTemplate {
  id: string;
  name: string;
  variables: string[];
}

interface Row {
  /** The row's line in the file (the header is line 1). */
  line: number;
  to: Record<string, string>;
  templateData: Record<string, string>;
  problems: string[];
}

const norm = (s: string) => s.trim().toLowerCase();

function guess(header: string[], names: readonly string[]): number {
  const h = header.map(norm);
  for (const n of names) {
    const i = h.indexOf(n);
    if (i >= 0) return i;
  }
  return -1;
}

/** What a row lacks for the API's postal address, in words (the API would refuse the whole request). */
function problemsOf(to: Record<string, string>): string[] {
  const out: string[] = [];
  if (!to.name && !to.company) out.push("no name or company");
  if (!to.street && !to.poBox) out.push("no street or PO box");
  if (!to.city) out.push("no city");
  if (!to.country) out.push("no country");
  else if (!/^[A-Za-z]{2}$/.test(to.country)) out.push(`country “${to.country}” is not a 2-letter code such as DE`);
  for (const [k, v] of Object.entries(to)) if (v.length > 200) out.push(`${k} is longer than 200 characters`);
  return out;
}

export function LetterBatchUpload({
  templates,
  initialTemplateId,
  initialBatchId,
}: {
  templates: BatchTemplate[];
  initialTemplateId: string | null;
  initialBatchId: string | null;
}) {
  const router = useRouter();
  const fileId = useId();
  const [templateId, setTemplateId] = useState(
    templates.find((t) => t.id === initialTemplateId)?.id ?? templates[0]?.id ?? "",
  );
  const [csv, setCsv] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const [mapping, setMapping] = useState<Record<string, number>>({});
  const [batchId, setBatchId] = useState<string | null>(initialBatchId);
  const [lines, setLines] = useState<number[] | null>(null);
  const send = useAction(sendLetterBatchAction, { refresh: false });
  const template = templates.find((t) => t.id === templateId) ?? null;

  const table = useMemo(() => parseCsv(csv), [csv]);
  const header = table[0] ?? [];
  const body = table.slice(1);
  // A column per field: the user's choice, else the header's best guess.
  const columnOf = (key: string, guesses: readonly string[]) => mapping[key] ?? guess(header, guesses);
  const variableKey = (name: string) => `data.${name}`;

  const rows: Row[] = body.map((cells, r) => {
    const to: Record<string, string> = {};
    for (const f of ADDRESS_FIELDS) {
      const at = columnOf(f.key, f.guesses);
      const v = at >= 0 ? (cells[at] ?? "").trim() : "";
      if (v) to[f.key] = f.key === "country" ? v.toUpperCase() : v;
    }
    const templateData: Record<string, string> = {};
    for (const name of template?.variables ?? []) {
      const at = columnOf(variableKey(name), [norm(name)]);
      if (at >= 0) templateData[name] = (cells[at] ?? "").trim();
    }
    return { line: r + 2, to, templateData, problems: problemsOf(to) };
  });
  const good = rows.filter((r) => r.problems.length === 0);
  const bad = rows.filter((r) => r.problems.length > 0);
  const tooMany = good.length > 1000;

  const onFile = async (file: File | undefined) => {
    setFileError(null);
    if (!file) return;
    if (file.size > 2 * 1024 * 1024) {
      setFileError(
        `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; a batch file may be at most 2 MB (1,000 recipients).`,
      );
      return;
    }
    setMapping({});
    setCsv(await file.text());
  };

  const submit = () => {
    if (!template || good.length === 0 || tooMany) return;
    send.mutate(
      {
        templateId: template.id,
        recipients: good.map((r) => ({
          to: r.to,
          ...(Object.keys(r.templateData).length > 0 ? { templateData: r.templateData } : {}),
        })),
      },
      {
        onSuccess: (batch) => {
          setLines(good.map((r) => r.line));
          setBatchId(batch.id);
          router.replace(`/letters/batch?batchId=${batch.id}`, { scroll: false });
        },
      },
    );
  };

  if (batchId)
    return (
      <BatchProgress
        batchId={batchId}
        lines={lines}
        onAnother={() => {
          setBatchId(null);
          setLines(null);
          send.reset();
          router.replace("/letters/batch", { scroll: false });
        }}
      />
    );

  if (templates.length === 0)
    return (
      <EmptyState
        title="No active letter template"
        description="A batch sends one template to every row; create or reactivate one first."
        action={
          <Link className="link" href="/letters/templates">
            Open the letter templates
          </Link>
        }
      />
    );

  const mappingSelect = (key: string, label: string, guesses: readonly string[]) => (
    <Select
      key={key}
      label={label}
      value={String(columnOf(key, guesses))}
      onChange={(e) => setMapping((m) => ({ ...m, [key]: Number(e.target.value) }))}
    >
      <option value="-1">Not in the file</option>
      {header.map((h, i) => (
        <option key={i} value={i}>
          {h.trim() || `Column ${i + 1}`}
        </option>
      ))}
    </Select>
  );

  return (
    <form
      aria-label="Send letters from a CSV file"
      className="space-y-6"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Select label="Letter template" value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
        {templates.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </Select>
      <div className="space-y-1">
        <label htmlFor={fileId} className="block text-sm font-medium">
          CSV file
        </label>
        <input
          id={fileId}
          type="file"
          accept=".csv,text/csv"
          aria-describedby={`${fileId}-hint`}
          onChange={(e) => void onFile(e.target.files?.[0])}
          className="block w-full max-w-full text-sm file:mr-3 file:rounded-md file:border file:border-zinc-300 file:bg-white file:px-3 file:py-1.5 file:text-sm dark:file:border-zinc-700 dark:file:bg-zinc-900 dark:file:text-zinc-100"
        />
        <p id={`${fileId}-hint`} className="text-xs text-zinc-600 dark:text-zinc-400">
          The first row names the columns; one recipient per row, up to 1,000. The file is read in this browser.
        </p>
      </div>
      <TextArea
        label="Or paste the CSV"
        rows={5}
        value={csv}
        spellCheck={false}
        className="font-mono text-xs"
        onChange={(e) => {
          setCsv(e.target.value);
        }}
        placeholder={
          "name,street,houseNumber,postalCode,city,country,greeting\nErika Mustermann,Hauptstraße,5,10115,Berlin,DE,Dear Erika"
        }
      />
      {fileError ? <ErrorNotice>{fileError}</ErrorNotice> : null}
      {header.length > 0 ? (
        <>
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Recipient address: which column holds each field</legend>
            <div className="grid gap-3 sm:grid-cols-3">
              {ADDRESS_FIELDS.map((f) => mappingSelect(f.key, f.label, f.guesses))}
            </div>
          </fieldset>
          {template && template.variables.length > 0 ? (
            <fieldset className="space-y-3">
              <legend className="text-sm font-semibold">
                Template data: the column of each of the template&apos;s variables
              </legend>
              <div className="grid gap-3 sm:grid-cols-3">
                {template.variables.map((name) => mappingSelect(variableKey(name), name, [norm(name)]))}
              </div>
            </fieldset>
          ) : null}
          <p className="text-sm" role="status">
            {rows.length} row{rows.length === 1 ? "" : "s"} read: {good.length} ready
            {bad.length > 0 ? `, ${bad.length} with a problem (not sent)` : ""}.
            {tooMany ? " A batch takes at most 1,000 recipients: split the file." : ""}
          </p>
          {bad.length > 0 ? (
            <Table head={["Line", "Problem"]} caption="Rows that will not be sent">
              {bad.slice(0, 100).map((r) => (
                <tr key={r.line} data-testid="csv-problem">
                  <Td className="tabular-nums">{r.line}</Td>
                  <Td className="break-words">{r.problems.join("; ")}</Td>
                </tr>
              ))}
            </Table>
          ) : null}
        </>
      ) : null}
      <FormError failure={send.failure} />
      <Button pending={send.isPending} disabled={!template || good.length === 0 || tooMany}>
        {good.length > 0 ? `Send ${good.length} letter${good.length === 1 ? "" : "s"}` : "Send letters"}
      </Button>
    </form>
  );
}

type Batch =
  Awaited<ReturnType<typeof getLetterBatchAction>> extends infer R
    ? R extends { ok: true; data: infer D }
      ? D
      : never
    : never;

/** The batch's progress, polled until every recipient is created or failed; each failure beside its CSV line. */
function BatchProgress({
  batchId,
  lines,
  onAnother,
}: {
  batchId: string;
  lines: number[] | null;
  onAnother: () => void;
}) {
  const query = useQuery({
    queryKey: ["letter-batch", batchId],
    queryFn: async (): Promise<Batch> => {
      const r = await getLetterBatchAction({ batchId });
      if (!r.ok) throw new Error(r.error.message);
      return r.data;
    },
    refetchInterval: (q) => (q.state.data?.status === "completed" ? false : 1500),
  });
  const batch = query.data;
  if (query.error && !batch) return <ErrorNotice>The batch could not be read: {query.error.message}</ErrorNotice>;
  if (!batch) return <p role="status">Reading the batch…</p>;
  const failed = batch.items.filter((i) => i.status === "failed");
  const created = batch.items.filter((i) => i.status === "created");
  const where = (index: number) => (lines?.[index] ? `Line ${lines[index]}` : `Recipient ${index + 1}`);
  return (
    <div className="space-y-4" data-testid="batch-progress">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={batch.status === "completed" ? "green" : "yellow"}>
          {batch.status === "completed" ? "Completed" : "Processing"}
        </Badge>
        <span className="text-sm">
          {batch.created} created, {batch.failed} failed, {batch.pending} pending of {batch.total}
        </span>
      </div>
      <UsageBar label="Recipients done" used={batch.created + batch.failed} limit={batch.total} unit="recipients" />
      <p role="status" className="text-sm">
        {batch.status === "completed"
          ? `Done: ${batch.created} letter${batch.created === 1 ? "" : "s"} made${batch.failed > 0 ? `, ${batch.failed} refused (below)` : ""}.`
          : "Each recipient's letter is rendered, verified and priced in the background; this follows it."}
      </p>
      {failed.length > 0 ? (
        <Table head={["Row", "Error", "Field"]} caption="Recipients refused">
          {failed.map((i) => (
            <tr key={i.index} data-testid="batch-error">
              <Td className="whitespace-nowrap">{where(i.index)}</Td>
              <Td className="break-words">{i.error?.message ?? "Refused."}</Td>
              <Td className="break-words">{i.error?.param ?? "—"}</Td>
            </tr>
          ))}
        </Table>
      ) : null}
      {created.length > 0 ? (
        <details>
          <summary className="cursor-pointer text-sm font-medium">Letters made ({created.length})</summary>
          <ul className="mt-2 space-y-1 text-sm">
            {created.slice(0, 200).map((i) => (
              <li key={i.index}>
                {where(i.index)}:{" "}
                <Link className="link" href={`/letters/${i.letterId}`}>
                  letter {i.letterId?.slice(-8)}
                </Link>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <div className="flex flex-wrap gap-3">
        <Link className="link text-sm" href="/letters">
          All letters
        </Link>
        <Button type="button" variant="secondary" onClick={onAnother}>
          Send another file
        </Button>
      </div>
    </div>
  );
}
