"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import {
  addMembersAction,
  createAudienceAction,
  deleteAudienceAction,
  readBroadcastAction,
  removeMemberAction,
  sendBroadcastAction,
  previewBroadcastDraftAction,
  sendBroadcastDraftTestAction,
  sendBroadcastTestAction,
} from "@/lib/console/actions/audiences";
import { MessageBody } from "../messaging/message-body";
import { batches, type ImportRow, readMemberCsv } from "@/lib/console/csv";
import { Button, Field, FormError, LogEntryLink, Select, TextArea, useAction, useActionForm } from "../form";
import { ErrorNotice, StatusBadge } from "../ui";
import { formText } from "../form-text";
import { ConfirmButton } from "../dialog";

/** The members operation takes at most this many members a request. */
const BATCH = 2000;

/** Creates an audience and opens it. */
export function NewAudienceForm() {
  const router = useRouter();
  const create = useActionForm(createAudienceAction, {
    refresh: false,
    onSuccess: (data) => router.push(`/audiences/${data.id}`),
  });
  return (
    <form {...create.formProps} aria-label="New audience" className="grid gap-3 sm:grid-cols-2">
      <Field
        label="Name"
        name="name"
        required
        maxLength={200}
        placeholder="Newsletter"
        error={create.fieldError("name")}
      />
      <Field
        label="Description (optional)"
        name="description"
        maxLength={2000}
        error={create.fieldError("description")}
      />
      <div className="space-y-3 sm:col-span-2">
        <Button pending={create.isPending}>Create audience</Button>
        <FormError failure={create.failure} />
      </div>
    </form>
  );
}

/** Adds one member by address or contact reference (`@alias`). */
export function AddMemberForm({ audienceId }: { audienceId: string }) {
  const [added, setAdded] = useState<number | null>(null);
  const add = useAction(addMembersAction, { onSuccess: (data) => setAdded(data.imported) });
  const error = add.failure
    ? (Object.entries(add.failure.fields).find(([k]) => k.startsWith("members"))?.[1] ?? add.failure.message)
    : undefined;
  return (
    <form
      aria-label="Add a member"
      noValidate
      className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const data = new FormData(form);
        const text = formText(data);
        const who = text("email");
        const member = who.startsWith("@") || who.startsWith("contact:") ? { contact: who } : { email: who };
        add.mutate(
          { audienceId, members: [{ ...member, ...(text("name") ? { name: text("name") } : {}) }] },
          { onSuccess: () => form.reset() },
        );
      }}
    >
      <Field
        label="Email or @contact"
        name="email"
        required
        maxLength={320}
        placeholder="ada@example.com"
        error={error}
      />
      <Field label="Name (optional)" name="name" maxLength={200} />
      <Button pending={add.isPending}>Add member</Button>
      {added !== null ? (
        <p role="status" className="text-sm sm:col-span-3">
          {added === 1 ? "Added." : "Already a member: nothing changed."}
        </p>
      ) : null}
    </form>
  );
}

type ImportState = {
  file: string;
  total: number;
  done: number;
  imported: number;
  skipped: { line: number; reason: string }[];
  error: string | null;
  finished: boolean;
};

/** The line of the file a batch's `members[i]…` error points at. */
function lineOf(param: string | null, batch: ImportRow[]): number | null {
  const m = param ? /^members\[(\d+)\]/.exec(param) : null;
  return m ? (batch[Number(m[1])]?.line ?? null) : null;
}

/**
 * CSV import: the file (`email,name`) is read in the browser and sent in batches of up to 2,000 to
 * the members operation, with a progress bar; rows without an address are skipped and listed; a
 * batch the API refuses stops the import and says which line.
 */
export function CsvImport({ audienceId }: { audienceId: string }) {
  const router = useRouter();
  const [state, setState] = useState<ImportState | null>(null);
  const add = useAction(addMembersAction, { refresh: false });

  async function run(file: File) {
    const { rows, skipped } = readMemberCsv(await file.text());
    const base: ImportState = {
      file: file.name,
      total: rows.length,
      done: 0,
      imported: 0,
      skipped,
      error: null,
      finished: false,
    };
    setState(base);
    if (rows.length === 0)
      return setState({ ...base, error: "The file has no rows with an email address.", finished: true });
    let done = 0;
    let imported = 0;
    for (const batch of batches(rows, BATCH)) {
      try {
        const out = await add.mutateAsync({
          audienceId,
          members: batch.map(({ email, name }) => ({ email, ...(name ? { name } : {}) })),
        });
        done += batch.length;
        imported += out.imported;
        setState((s) => (s ? { ...s, done, imported } : s));
      } catch (err) {
        const failure = (err as { error?: { message: string; param: string | null } }).error;
        const line = lineOf(failure?.param ?? null, batch);
        const message = `${line !== null ? `Line ${line}: ` : ""}${failure?.message ?? "The import failed; check your connection."} Rows before it were imported; fix the file and import it again (members already added are merged).`;
        setState((s) => (s ? { ...s, error: message, finished: true } : s));
        router.refresh();
        return;
      }
    }
    setState((s) => (s ? { ...s, finished: true } : s));
    router.refresh();
  }

  return (
    <div className="space-y-3">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        A CSV file with an <code>email</code> column and optionally <code>name</code> (a header row, or email then
        name). Addresses already in the audience are merged; an unsubscribed member stays unsubscribed.
      </p>
      <label className="inline-flex cursor-pointer items-center rounded-md border border-zinc-300 px-3 py-2 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
        Choose a CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          className="sr-only"
          disabled={state !== null && !state.finished}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = "";
            if (file) void run(file);
          }}
        />
      </label>
      {state ? (
        <div aria-live="polite" className="space-y-1 text-sm">
          <div className="flex flex-wrap justify-between gap-2">
            <span className="break-all">{state.file}</span>
            <span>
              {state.done.toLocaleString()} of {state.total.toLocaleString()} rows
              {state.finished && !state.error
                ? ` — done: ${state.imported.toLocaleString()} new, ${(state.done - state.imported).toLocaleString()} already members`
                : ""}
            </span>
          </div>
          <progress
            className="w-full"
            max={Math.max(state.total, 1)}
            value={state.done}
            aria-label={`Import of ${state.file}`}
          />
          {state.skipped.length > 0 ? (
            <details>
              <summary className="cursor-pointer">
                {state.skipped.length} row{state.skipped.length === 1 ? "" : "s"} skipped
              </summary>
              <ul className="mt-1 list-disc pl-5">
                {state.skipped.slice(0, 50).map((s) => (
                  <li key={s.line}>
                    Line {s.line}: {s.reason}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          {state.error ? <ErrorNotice>{state.error}</ErrorNotice> : null}
        </div>
      ) : null}
    </div>
  );
}

export function RemoveMemberButton({
  audienceId,
  memberId,
  email,
}: {
  audienceId: string;
  memberId: string;
  email: string;
}) {
  const remove = useAction(removeMemberAction);
  return (
    <span className="space-y-1">
      <ConfirmButton
        variant="secondary"
        label="Remove"
        ariaLabel={`Remove ${email}`}
        pending={remove.isPending}
        title={`Remove ${email} from this audience?`}
        description="Later broadcasts to this audience leave them out. Messages already sent stay."
        confirmLabel="Remove member"
        onConfirm={() => remove.mutate({ audienceId, memberId })}
      />
      {remove.failure ? (
        <ErrorNotice>
          {remove.failure.message}
          <LogEntryLink failure={remove.failure} />
        </ErrorNotice>
      ) : null}
    </span>
  );
}

export function DeleteAudienceButton({ audienceId, name }: { audienceId: string; name: string }) {
  const router = useRouter();
  const remove = useAction(deleteAudienceAction, { refresh: false, onSuccess: () => router.push("/audiences") });
  return (
    <span className="flex flex-col items-end gap-1">
      <ConfirmButton
        label="Delete audience"
        pending={remove.isPending}
        title={`Delete ${name}?`}
        description="The audience and its members are deleted; messages already sent stay. This cannot be undone."
        confirmLabel="Delete audience"
        typeToConfirm={name}
        onConfirm={() => remove.mutate({ audienceId })}
      />
      {remove.failure ? (
        <ErrorNotice>
          {remove.failure.message}
          <LogEntryLink failure={remove.failure} />
        </ErrorNotice>
      ) : null}
    </span>
  );
}

/** The send form's draft (what the broadcast, its preview and its test send say), or the variables' JSON error. */
function readDraft(
  form: HTMLFormElement,
  body: "text" | "template",
): { draft: Record<string, unknown>; error: null } | { draft: null; error: string } {
  const data = new FormData(form);
  const text = (k: string) => {
    const v = data.get(k);
    return typeof v === "string" ? v : "";
  };
  let variables: Record<string, unknown> | undefined;
  if (body === "template" && text("variables").trim()) {
    try {
      const parsed: unknown = JSON.parse(text("variables"));
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      variables = parsed as Record<string, unknown>;
    } catch {
      return { draft: null, error: 'The variables must be a JSON object, like {"name": "there"}.' };
    }
  }
  return {
    error: null,
    draft: {
      inboxId: text("inboxId"),
      ...(text("subject").trim() ? { subject: text("subject").trim() } : {}),
      ...(body === "text"
        ? { text: text("text") }
        : { template: { id: text("templateId"), ...(variables ? { variables } : {}) } }),
    },
  };
}

/**
 * "Send broadcast": an inbox, a subject, and a text body or a template; before sending, a preview
 * of what members receive (the broadcast page's `MessageBody`) and a test to one address; sending
 * opens the broadcast's page.
 */
/** What a test send answered (the audience's send form and a broadcast's page): the error, or where it went. */
function TestSendResult({
  data,
  failure,
}: {
  data: { status: string; to: string[]; id?: string | null } | null | undefined;
  failure: Parameters<typeof FormError>[0]["failure"];
}) {
  return (
    <>
      <FormError failure={failure} />
      {data && !failure ? (
        <p role="status" className="text-sm">
          Test {data.status === "failed" ? "failed" : "sent"} to {data.to.join(", ")}.{" "}
          {data.id ? (
            <Link className="link" href={`/messages/${data.id}`}>
              Open the message
            </Link>
          ) : null}
        </p>
      ) : null}
    </>
  );
}

export function BroadcastForm({
  audienceId,
  inboxes,
  templates,
}: {
  audienceId: string;
  inboxes: { id: string; address: string }[];
  templates: { id: string; name: string; slug: string }[];
}) {
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const [body, setBody] = useState<"text" | "template">("text");
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [testTo, setTestTo] = useState("");
  const send = useAction(sendBroadcastAction, {
    refresh: false,
    onSuccess: (data) => router.push(`/broadcasts/${data.id}`),
  });
  const preview = useAction(previewBroadcastDraftAction, { refresh: false });
  const test = useAction(sendBroadcastDraftTestAction, { refresh: false });
  const fieldError = (prefix: string) =>
    [send.failure, test.failure, preview.failure]
      .map((f) =>
        f ? Object.entries(f.fields).find(([k]) => k === prefix || k.startsWith(`${prefix}.`))?.[1] : undefined,
      )
      .find((m) => m !== undefined);
  /** The form's draft, or null after showing the variables' error. */
  const draft = () => {
    if (!formRef.current) return null;
    const read = readDraft(formRef.current, body);
    setJsonError(read.error);
    return read.draft;
  };
  if (inboxes.length === 0)
    return <p className="text-sm">Create an email inbox first: a broadcast is sent from one.</p>;
  return (
    <form
      ref={formRef}
      aria-label="Send broadcast"
      noValidate
      className="grid gap-3 sm:grid-cols-2"
      onChange={(e) => {
        // A preview of an older draft would mislead once the draft changes (the test address is not the draft).
        const target: EventTarget = e.target;
        if (preview.data && !(target instanceof HTMLInputElement && target.name === "testTo")) preview.reset();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        const d = draft();
        if (d) send.mutate({ audienceId, ...d });
      }}
    >
      <Select label="From inbox" name="inboxId" error={fieldError("inboxId")}>
        {inboxes.map((i) => (
          <option key={i.id} value={i.id}>
            {i.address}
          </option>
        ))}
      </Select>
      <Field
        label="Subject"
        name="subject"
        maxLength={998}
        error={fieldError("subject")}
        hint={body === "template" ? "Empty: the template's subject." : undefined}
      />
      <fieldset className="sm:col-span-2">
        <legend className="text-sm font-medium">Body</legend>
        <div className="mt-1 flex gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input type="radio" name="body" value="text" checked={body === "text"} onChange={() => setBody("text")} />{" "}
            Text
          </label>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="body"
              value="template"
              checked={body === "template"}
              onChange={() => setBody("template")}
              disabled={templates.length === 0}
            />{" "}
            Template
            {templates.length === 0 ? <span className="text-zinc-600 dark:text-zinc-400">(none yet)</span> : null}
          </label>
        </div>
      </fieldset>
      {body === "text" ? (
        <div className="sm:col-span-2">
          <TextArea label="Text" name="text" rows={6} error={fieldError("text")} />
        </div>
      ) : (
        <>
          <Select label="Template" name="templateId" error={fieldError("template") ?? fieldError("idOrSlug")}>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.slug})
              </option>
            ))}
          </Select>
          <TextArea
            label="Variables (JSON, optional)"
            name="variables"
            rows={3}
            spellCheck={false}
            className="font-mono text-xs"
            error={jsonError ?? fieldError("variables") ?? undefined}
            hint="Rendered once for every member."
          />
        </>
      )}
      <div className="space-y-3 sm:col-span-2">
        <div className="flex flex-wrap items-center gap-3">
          <Button
            type="button"
            variant="secondary"
            pending={preview.isPending}
            onClick={() => {
              const d = draft();
              if (d) preview.mutate(d);
            }}
          >
            Preview
          </Button>
        </div>
        <FormError failure={preview.failure} />
        {preview.data && !preview.failure ? (
          <section aria-label="Preview" className="rounded border border-zinc-200 p-3 dark:border-zinc-700">
            <p className="mb-2 text-sm">
              <span className="font-medium">Subject:</span> {preview.data.subject ?? "(the subject you enter)"}
            </p>
            <MessageBody html={preview.data.html} text={preview.data.text} from="the broadcast" />
            <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
              Each member&apos;s copy also carries its own unsubscribe link.
            </p>
          </section>
        ) : null}
      </div>
      <div className="flex flex-wrap items-end gap-3 sm:col-span-2">
        <div className="min-w-56 flex-1">
          <Field
            label="Send a test to one address"
            name="testTo"
            type="email"
            autoComplete="off"
            value={testTo}
            onChange={(e) => setTestTo(e.target.value)}
            placeholder="you@example.com"
            error={test.failure ? (fieldError("to") ?? fieldError("to[0]")) : undefined}
            hint="One copy of this draft from the chosen inbox; the audience is not touched."
          />
        </div>
        <Button
          type="button"
          variant="secondary"
          pending={test.isPending}
          onClick={() => {
            const d = draft();
            if (d) test.mutate({ ...d, to: testTo });
          }}
        >
          Send a test
        </Button>
      </div>
      <div className="sm:col-span-2">
        <TestSendResult data={test.data} failure={test.failure} />
      </div>
      <div className="space-y-3 border-t border-zinc-200 pt-3 sm:col-span-2 dark:border-zinc-700">
        <Button pending={send.isPending}>Send broadcast</Button>
        <FormError failure={send.failure} />
      </div>
    </form>
  );
}

export interface BroadcastView {
  id: string;
  status: "queued" | "sending" | "completed";
  counts: { total: number; sent: number; failed: number; suppressed: number; pending: number };
  completedAt: string | null;
}

/** How often the broadcast page asks for progress while it is not completed. */
const POLL_MS = 1000;

/** The broadcast's live progress: polls the broadcast until it is completed; a bar of finished members and the counts. */
export function BroadcastProgress({ initial }: { initial: BroadcastView }) {
  const router = useRouter();
  const [b, setB] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const read = useAction(readBroadcastAction, { refresh: false });
  const readRef = useRef(read.mutateAsync);
  readRef.current = read.mutateAsync;
  const done = b.status === "completed";

  useEffect(() => {
    if (done) return;
    let stopped = false;
    const tick = async () => {
      try {
        const next = (await readRef.current({ broadcastId: initial.id })) as BroadcastView;
        if (!stopped) {
          setB(next);
          setError(null);
          // The page's details (completed at) are the server's.
          if (next.status === "completed") router.refresh();
        }
      } catch (err) {
        if (!stopped) setError((err as Error).message || "Could not read the progress; retrying.");
      }
    };
    const timer = setInterval(() => void tick(), POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [done, initial.id, router]);

  const { total, sent, failed, suppressed, pending } = b.counts;
  const finished = sent + failed + suppressed;
  const pct = total === 0 ? 100 : Math.round((finished / total) * 100);
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <span>
          Status: <StatusBadge status={b.status} />
        </span>
        <span aria-live="polite" data-testid="broadcast-progress">
          {finished.toLocaleString()} of {total.toLocaleString()} members done ({pct}%)
        </span>
      </div>
      <progress
        className="w-full"
        max={Math.max(total, 1)}
        value={total === 0 ? 1 : finished}
        aria-label="Broadcast progress"
      />
      <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        {(
          [
            ["Sent", sent],
            ["Failed", failed],
            ["Suppressed", suppressed],
            ["Pending", pending],
          ] as const
        ).map(([label, n]) => (
          <div key={label} className="rounded border border-zinc-200 p-3 dark:border-zinc-800">
            <dt className="text-xs font-semibold text-zinc-600 uppercase dark:text-zinc-300">{label}</dt>
            <dd className="text-lg font-semibold tabular-nums" data-testid={`count-${label.toLowerCase()}`}>
              {n.toLocaleString()}
            </dd>
          </div>
        ))}
      </dl>
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
    </div>
  );
}

/** "Send a test": one copy of the broadcast to one address, through the send operation; the audience is not touched. */
export function BroadcastTestForm({ broadcastId }: { broadcastId: string }) {
  const test = useActionForm(sendBroadcastTestAction, { refresh: false, extra: () => ({ broadcastId }) });
  return (
    <form {...test.formProps} aria-label="Send a test" className="space-y-3">
      <div className="max-w-md">
        <Field
          label="Address"
          name="to"
          type="email"
          autoComplete="off"
          placeholder="you@example.com"
          hint="One copy of this broadcast, from its inbox, as an ordinary message (it counts against budgets)."
          error={test.fieldError("to") ?? test.fieldError("to[0]")}
        />
      </div>
      <Button variant="secondary" pending={test.isPending}>
        Send a test
      </Button>
      <TestSendResult data={test.data} failure={test.failure} />
    </form>
  );
}
