"use client";

import { useState } from "react";
import {
  exportAuditAction,
  requestErasureAction,
  requestPurgeAction,
  verifyAuditAction,
} from "@/lib/console/actions/compliance";
import { VERIFY_FILE_MAX_BYTES, VERIFY_FILE_TOO_LARGE } from "../config/limits";
import type { InputRules } from "../contract-input";
import { ConfirmButton } from "../dialog";
import { downloadJson } from "../download";
import { Button, Field, FormError, Select, useAction } from "../form";

type VerifyResult =
  Awaited<ReturnType<typeof verifyAuditAction>> extends infer R
    ? R extends { ok: true; data: infer D }
      ? D
      : never
    : never;

/** The verifier's report as a sentence: valid with what was checked, or the first thing that is broken. */
function verdict(r: VerifyResult["report"]): string {
  const positions = r.firstChainSeq !== null ? ` (positions ${r.firstChainSeq}–${r.lastChainSeq})` : "";
  const signatures =
    r.manifests.length > 0 && r.manifests.every((m) => m.signature === "valid")
      ? "manifest signature valid"
      : "manifest signature not valid";
  if (r.ok) {
    const gaps =
      r.gaps.length > 0
        ? `; ${r.gaps.length} erased ${r.gaps.length === 1 ? "gap" : "gaps"}${r.gaps.every((g) => g.explained) ? ", each certified" : ""}`
        : "";
    return `Valid: chain intact, ${r.rowCount} ${r.rowCount === 1 ? "row" : "rows"}${positions}, ${signatures}${gaps}.`;
  }
  const first = r.problems[0];
  const where = first?.chainSeq != null ? `row ${first.chainSeq}: ` : "";
  return `Not valid: ${where}${first?.message ?? "the export could not be checked"} (${r.problems.length} ${r.problems.length === 1 ? "problem" : "problems"}, ${r.rowCount} rows read, ${signatures}).`;
}

/**
 * The audit export: download the whole chain as JSON (the pages `svc compliance verify` reads), and
 * verify it with the same verifier: a chosen file (one downloaded before), else the chain as it is now.
 */
export function ExportVerify() {
  const exporter = useAction(exportAuditAction, { refresh: false });
  const verifier = useAction(verifyAuditAction, { refresh: false });
  const [fileError, setFileError] = useState<string | null>(null);
  const [exported, setExported] = useState<string | null>(null);
  const result = verifier.data;
  const onExport = () => {
    setExported(null);
    exporter.mutate(
      {},
      {
        onSuccess: ({ pages, complete }) => {
          const rows = pages.reduce((n, p) => n + p.rows.length, 0);
          downloadJson(`audit-export-${new Date().toISOString().slice(0, 10)}.json`, { pages });
          setExported(
            `Downloaded ${rows} ${rows === 1 ? "row" : "rows"} in ${pages.length} ${pages.length === 1 ? "page" : "pages"}${complete ? "" : " (the first pages only: export the rest with GET /v1/audit-logs/export and its cursor)"}.`,
          );
        },
      },
    );
  };
  const onVerify = async (form: HTMLFormElement) => {
    setFileError(null);
    const input = form.elements.namedItem("file");
    const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
    if (file && file.size > VERIFY_FILE_MAX_BYTES) {
      setFileError(VERIFY_FILE_TOO_LARGE);
      return;
    }
    verifier.mutate(file ? { file: await file.text() } : {});
  };
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <Button type="button" variant="secondary" pending={exporter.isPending} onClick={onExport}>
          Download export (JSON)
        </Button>
      </div>
      {exported ? (
        <p role="status" className="text-sm">
          {exported}
        </p>
      ) : null}
      <FormError failure={exporter.failure} />
      <form
        aria-label="Verify an export"
        noValidate
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          void onVerify(e.currentTarget);
        }}
      >
        <Field
          type="file"
          name="file"
          accept="application/json,.json"
          label="Export file (optional)"
          hint="Leave empty to verify the chain as it is now."
          error={fileError ?? verifier.fieldError("file")}
          className="file:mr-3 file:rounded file:border-0 file:bg-zinc-100 file:px-2 file:py-1 dark:file:bg-zinc-800 dark:file:text-zinc-100"
        />
        <Button type="submit" pending={verifier.isPending}>
          Verify
        </Button>
        <FormError failure={verifier.failure && !verifier.fieldError("file") ? verifier.failure : null} />
      </form>
      {result ? (
        <div
          role="status"
          data-testid="verify-result"
          className={
            result.report.ok
              ? "space-y-2 rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100"
              : "space-y-2 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
          }
        >
          <p className="font-medium">{verdict(result.report)}</p>
          <p className="text-xs">
            {result.source === "file" ? "Checked the file you chose" : "Checked the chain exported just now"} against
            this service&apos;s JWKS, the same way as npm run svc -- compliance verify.
          </p>
          <details>
            <summary className="cursor-pointer text-xs font-medium">The verifier&apos;s report</summary>
            <pre className="mt-1 overflow-x-auto text-xs whitespace-pre-wrap">{result.lines.join("\n")}</pre>
          </details>
        </div>
      ) : null}
    </div>
  );
}

/** Starts an erasure of one address, after typing the address again (irreversible). */
export function StartErasure({ addressRules }: { addressRules: InputRules }) {
  const [address, setAddress] = useState("");
  const erase = useAction(requestErasureAction);
  const [started, setStarted] = useState<string | null>(null);
  const typed = address.trim();
  return (
    // Not a <form>: the confirmation dialog holds its own form, and forms must not nest.
    <section aria-label="Erase an address" className="space-y-3">
      <Field
        label="Email address to erase"
        name="address"
        {...addressRules}
        value={address}
        onChange={(e) => setAddress(e.target.value)}
        autoComplete="off"
        error={erase.fieldError("address")}
      />
      <ConfirmButton
        label="Erase…"
        title={`Erase ${typed}?`}
        description="Every message from or to this address, with its attachments, emptied threads, contact handles, complaint suppression and the audit rows that name it, is deleted everywhere in the organization. This cannot be undone; a signed deletion certificate records it."
        confirmLabel="Erase for good"
        typeToConfirm={typed}
        disabled={typed === ""}
        pending={erase.isPending}
        onConfirm={() => {
          setStarted(null);
          erase.mutate(
            { address: typed },
            {
              onSuccess: () => {
                setStarted(`Erasure of ${typed} started; it is listed below.`);
                setAddress("");
              },
            },
          );
        }}
      />
      {started ? (
        <p role="status" className="text-sm">
          {started}
        </p>
      ) : null}
      <FormError failure={erase.failure && !erase.fieldError("address") ? erase.failure : null} />
    </section>
  );
}

/** Starts a purge of one inbox's messages (the inbox stays), after typing its address (irreversible). */
export function StartPurge({ inboxes }: { inboxes: { id: string; address: string }[] }) {
  const [inboxId, setInboxId] = useState(inboxes[0]?.id ?? "");
  const purge = useAction(requestPurgeAction);
  const [started, setStarted] = useState<string | null>(null);
  const inbox = inboxes.find((i) => i.id === inboxId);
  return (
    // Not a <form>: the confirmation dialog holds its own form, and forms must not nest.
    <section aria-label="Purge an inbox" className="space-y-3">
      <Select
        label="Inbox"
        name="inboxId"
        value={inboxId}
        onChange={(e) => setInboxId(e.target.value)}
        error={purge.fieldError("inboxId")}
      >
        {inboxes.map((i) => (
          <option key={i.id} value={i.id}>
            {i.address}
          </option>
        ))}
      </Select>
      <ConfirmButton
        label="Purge…"
        title={`Purge ${inbox?.address ?? "the inbox"}?`}
        description="Every message and thread of this inbox, with attachments and event data, is deleted; the inbox itself stays. This cannot be undone; a signed deletion certificate records it."
        confirmLabel="Purge for good"
        typeToConfirm={inbox?.address}
        disabled={!inbox}
        pending={purge.isPending}
        onConfirm={() => {
          if (!inbox) return;
          setStarted(null);
          purge.mutate(
            { inboxId: inbox.id },
            { onSuccess: () => setStarted(`Purge of ${inbox.address} started; it is listed below.`) },
          );
        }}
      />
      {started ? (
        <p role="status" className="text-sm">
          {started}
        </p>
      ) : null}
      <FormError failure={purge.failure && !purge.fieldError("inboxId") ? purge.failure : null} />
    </section>
  );
}

/** Saves a completed job's signed deletion certificate as JSON. */
export function CertificateButton({
  jobId,
  kind,
  certificate,
}: {
  jobId: string;
  kind: string;
  certificate: Record<string, unknown>;
}) {
  return (
    <Button
      type="button"
      variant="secondary"
      aria-label={`Download certificate of ${kind} ${jobId}`}
      onClick={() => downloadJson(`deletion-certificate-${jobId}.json`, certificate)}
    >
      Download certificate
    </Button>
  );
}
