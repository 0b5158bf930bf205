"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import {
  archiveTemplateAction,
  createTemplateAction,
  previewTemplateAction,
  publishVersionAction,
  updateTemplateAction,
} from "@/lib/console/actions/templates";
import { sandboxedDocument } from "../messaging/message-body";
import { Button, Field, FormError, LogEntryLink, TextArea, useAction } from "../form";
import { ErrorNotice } from "../ui";
import { formText } from "../form-text";
import { ConfirmButton } from "../dialog";

/** How long typing pauses before the preview renders again. */
const PREVIEW_PAUSE_MS = 400;

/**
 * The editor field and the words for a request field the API named. A preview names the draft's
 * fields (`draft.source`) and the preview's values (`variables.name`); a publish names the version's
 * fields (`source`, `variables.properties.name.type`).
 */
function fieldOf(
  param: string | null,
  publishing = false,
): { field: "source" | "subject" | "variables" | "preview" | null; label: string } {
  const p = publishing
    ? param
    : param?.startsWith("draft.")
      ? param.slice("draft.".length)
      : param?.startsWith("variables")
        ? `preview.${param}`
        : param;
  if (!p) return { field: null, label: "Template" };
  if (p.startsWith("source")) return { field: "source", label: "Source" };
  if (p.startsWith("subject")) return { field: "subject", label: "Subject template" };
  if (p.startsWith("variables")) return { field: "variables", label: "Variables schema" };
  if (p.startsWith("preview.variables."))
    return { field: "preview", label: `Preview variable ${p.slice("preview.variables.".length)}` };
  if (p.startsWith("preview.")) return { field: "preview", label: "Preview variables" };
  return { field: null, label: p };
}

/** JSON typed in a text area: the value, or the reason it is not an object. */
function parseObject(
  text: string,
  what: string,
): { ok: true; value: Record<string, unknown> | null } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: true, value: null };
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== "object" || Array.isArray(value))
      return { ok: false, message: `${what} must be a JSON object, like {"name": "Ada"}.` };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (err) {
    return { ok: false, message: `${what} is not valid JSON: ${(err as Error).message}` };
  }
}

/** Values for the preview from a schema's defaults (`{"name": "there"}`), as a starting point. */
export function sampleValues(schema: Record<string, unknown> | null): Record<string, unknown> {
  const props =
    schema && typeof schema.properties === "object" && schema.properties
      ? (schema.properties as Record<string, { default?: unknown; enum?: unknown[] }>)
      : {};
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(props)) {
    if (p.default !== undefined) out[name] = p.default;
    else if (Array.isArray(p.enum) && p.enum.length > 0) out[name] = p.enum[0];
  }
  return out;
}

interface Rendered {
  subject: string | null;
  html: string;
  text: string | null;
}
type PreviewState =
  | { status: "idle" | "rendering" }
  | { status: "ok"; rendered: Rendered }
  | { status: "error"; field: ReturnType<typeof fieldOf>["field"]; message: string };

interface Draft {
  source: string;
  subject: string;
  variables: string;
  notes: string;
  preview: string;
}

/**
 * Publishes a template's next version: source, subject template, variables schema and notes, with a
 * live preview of the draft rendered by the API's render operation (the same sandbox as a send)
 * after each pause in typing. A failed render says what is wrong and which field it is in.
 */
export function TemplateEditor({
  templateId,
  initial,
  canWrite,
}: {
  templateId: string;
  initial: { source: string; subject: string | null; variables: Record<string, unknown> | null };
  canWrite: boolean;
}) {
  const [draft, setDraft] = useState<Draft>(() => ({
    source: initial.source,
    subject: initial.subject ?? "",
    variables: initial.variables ? JSON.stringify(initial.variables, null, 2) : "",
    notes: "",
    preview: JSON.stringify(sampleValues(initial.variables), null, 2),
  }));
  const [preview, setPreview] = useState<PreviewState>({ status: "idle" });
  const [published, setPublished] = useState<number | null>(null);
  const render = useAction(previewTemplateAction, { refresh: false });
  const publish = useAction(publishVersionAction, { onSuccess: (data) => setPublished(data.version) });
  const seq = useRef(0);
  const renderRef = useRef(render.mutateAsync);
  renderRef.current = render.mutateAsync;

  // Renders the draft after a pause in typing; an answer to an older draft is dropped.
  useEffect(() => {
    const run = async () => {
      const id = ++seq.current;
      const schema = parseObject(draft.variables, "The variables schema");
      if (!schema.ok) return setPreview({ status: "error", field: "variables", message: schema.message });
      const values = parseObject(draft.preview, "The preview variables");
      if (!values.ok) return setPreview({ status: "error", field: "preview", message: values.message });
      if (draft.source.trim() === "")
        return setPreview({
          status: "error",
          field: "source",
          message: "Source: write the email component (its default export).",
        });
      setPreview({ status: "rendering" });
      try {
        const out = (await renderRef.current({
          idOrSlug: templateId,
          draft: {
            source: draft.source,
            ...(draft.subject.trim() ? { subject: draft.subject } : {}),
            variables: schema.value,
          },
          variables: values.value ?? {},
        })) as Rendered;
        if (id === seq.current) setPreview({ status: "ok", rendered: out });
      } catch (err) {
        if (id !== seq.current) return;
        const failure = (err as { error?: { message: string; param: string | null } }).error;
        const where = fieldOf(failure?.param ?? null);
        setPreview({
          status: "error",
          field: where.field,
          message: `${where.label}${failure?.param ? ` (${failure.param})` : ""}: ${failure?.message ?? "the preview failed; check your connection."}`,
        });
      }
    };
    const timer = setTimeout(() => void run(), PREVIEW_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [draft, templateId]);

  const set = (key: keyof Draft) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setPublished(null);
    setDraft((d) => ({ ...d, [key]: value }));
  };
  const previewError = preview.status === "error" ? preview : null;
  const errorFor = (field: "source" | "subject" | "variables" | "preview") => {
    const fromPublish = publish.failure
      ? Object.entries(publish.failure.fields).find(([k]) => fieldOf(k, true).field === field)?.[1]
      : undefined;
    return fromPublish ?? (previewError?.field === field ? previewError.message : undefined);
  };

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <form
        aria-label="Publish a new version"
        noValidate
        className="min-w-0 space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          const schema = parseObject(draft.variables, "The variables schema");
          if (!schema.ok) return setPreview({ status: "error", field: "variables", message: schema.message });
          publish.mutate({
            idOrSlug: templateId,
            source: draft.source,
            ...(draft.subject.trim() ? { subject: draft.subject } : {}),
            variables: schema.value,
            ...(draft.notes.trim() ? { notes: draft.notes } : {}),
            makeCurrent:
              (e.currentTarget.elements.namedItem("makeCurrent") as HTMLInputElement | null)?.checked ?? true,
          });
        }}
      >
        <TextArea
          label="Source (react-email TSX)"
          name="source"
          rows={16}
          spellCheck={false}
          className="font-mono text-xs"
          value={draft.source}
          onChange={set("source")}
          error={errorFor("source")}
          readOnly={!canWrite}
        />
        <Field
          label="Subject template"
          name="subject"
          value={draft.subject}
          onChange={set("subject")}
          placeholder="Welcome, {{ name }}"
          hint="Placeholders like {{ name }} are filled from the variables."
          error={errorFor("subject")}
          readOnly={!canWrite}
        />
        <TextArea
          label="Variables schema (JSON)"
          name="variables"
          rows={6}
          spellCheck={false}
          className="font-mono text-xs"
          value={draft.variables}
          onChange={set("variables")}
          hint="A JSON Schema object: properties with type, enum, maxLength, default; required. Empty: any variables."
          error={errorFor("variables")}
          readOnly={!canWrite}
        />
        <TextArea
          label="Preview variables (JSON)"
          name="preview"
          rows={4}
          spellCheck={false}
          className="font-mono text-xs"
          value={draft.preview}
          onChange={set("preview")}
          hint="Only for the preview; not stored."
          error={errorFor("preview")}
        />
        {canWrite ? (
          <>
            <Field
              label="Notes (optional)"
              name="notes"
              value={draft.notes}
              onChange={set("notes")}
              maxLength={2000}
              placeholder="What changed"
            />
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="makeCurrent" defaultChecked /> Make it the current version (sends use it)
            </label>
            <div className="flex flex-wrap items-center gap-3">
              <Button pending={publish.isPending}>Publish new version</Button>
              {published !== null ? (
                <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
                  Published version {published}.
                </p>
              ) : null}
            </div>
            <FormError failure={publish.failure} />
          </>
        ) : null}
      </form>
      <section aria-label="Preview" className="min-w-0 space-y-2">
        <div className="flex items-center justify-between gap-2">
          <h3 className="text-sm font-semibold">Preview</h3>
          <p aria-live="polite" className="text-xs text-zinc-600 dark:text-zinc-400">
            {preview.status === "rendering"
              ? "Rendering…"
              : preview.status === "ok"
                ? "Rendered in the sandbox"
                : preview.status === "error"
                  ? "Not rendered"
                  : ""}
          </p>
        </div>
        {previewError ? <ErrorNotice>{previewError.message}</ErrorNotice> : null}
        {preview.status === "ok" ? (
          <>
            <p className="text-sm">
              <span className="font-medium">Subject:</span>{" "}
              {preview.rendered.subject ?? (
                <span className="text-zinc-600 italic dark:text-zinc-400">none (a send gives one)</span>
              )}
            </p>
            <iframe
              sandbox=""
              srcDoc={sandboxedDocument(preview.rendered.html)}
              title="Rendered email preview"
              className="h-[28rem] w-full rounded border border-zinc-200 bg-white dark:border-zinc-700"
            />
            {preview.rendered.text ? (
              <details className="text-sm">
                <summary className="cursor-pointer">Plain-text part</summary>
                <pre className="mt-2 font-sans text-sm break-words whitespace-pre-wrap">{preview.rendered.text}</pre>
              </details>
            ) : null}
          </>
        ) : null}
      </section>
    </div>
  );
}

const STARTER = `import { Html, Body, Heading, Text } from "@react-email/components";

export default function Email({ name }) {
  return (
    <Html>
      <Body>
        <Heading>Hello {name}</Heading>
        <Text>Thanks for signing up.</Text>
      </Body>
    </Html>
  );
}`;
const STARTER_VARIABLES = JSON.stringify(
  { type: "object", properties: { name: { type: "string", maxLength: 80, default: "there" } } },
  null,
  2,
);

/** Creates a template (its version 1 from a starter source) and opens it in the editor. */
export function NewTemplateForm() {
  const router = useRouter();
  const [jsonError, setJsonError] = useState<string | null>(null);
  const create = useAction(createTemplateAction, {
    refresh: false,
    onSuccess: (data) => router.push(`/templates/${data.id}`),
  });
  return (
    <form
      aria-label="New template"
      noValidate
      className="grid gap-3 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const str = formText(data);
        const schema = parseObject(str("variables"), "The variables schema");
        if (!schema.ok) return setJsonError(schema.message);
        setJsonError(null);
        create.mutate({
          name: str("name"),
          ...(str("slug") ? { slug: str("slug") } : {}),
          source: data.get("source"),
          ...(str("subject") ? { subject: str("subject") } : {}),
          variables: schema.value,
        });
      }}
    >
      <Field
        label="Name"
        name="name"
        required
        maxLength={120}
        error={create.fieldError("name")}
        placeholder="Welcome"
      />
      <Field
        label="Slug (optional)"
        name="slug"
        maxLength={64}
        error={create.fieldError("slug")}
        hint="Lowercase letters, digits and hyphens; made from the name if empty."
      />
      <div className="sm:col-span-2">
        <Field
          label="Subject template"
          name="subject"
          defaultValue="Welcome, {{ name }}"
          error={create.fieldError("subject")}
        />
      </div>
      <div className="sm:col-span-2">
        <TextArea
          label="Source (react-email TSX)"
          name="source"
          rows={12}
          spellCheck={false}
          className="font-mono text-xs"
          defaultValue={STARTER}
          error={create.fieldError("source")}
        />
      </div>
      <div className="sm:col-span-2">
        <TextArea
          label="Variables schema (JSON)"
          name="variables"
          rows={5}
          spellCheck={false}
          className="font-mono text-xs"
          defaultValue={STARTER_VARIABLES}
          error={
            jsonError ?? Object.entries(create.failure?.fields ?? {}).find(([k]) => k.startsWith("variables"))?.[1]
          }
        />
      </div>
      <div className="sm:col-span-2 space-y-3">
        <Button pending={create.isPending}>Create template</Button>
        <FormError failure={create.failure} />
      </div>
    </form>
  );
}

/** Roll back or forward: makes a published version the one sends use. */
export function MakeCurrentButton({ templateId, version }: { templateId: string; version: number }) {
  const update = useAction(updateTemplateAction);
  return (
    <span className="space-y-1">
      <Button
        variant="secondary"
        pending={update.isPending}
        onClick={() => update.mutate({ idOrSlug: templateId, currentVersion: version })}
        aria-label={`Make current: version ${version}`}
      >
        Make current
      </Button>
      {update.failure ? (
        <ErrorNotice>
          {update.failure.message}
          <LogEntryLink failure={update.failure} />
        </ErrorNotice>
      ) : null}
    </span>
  );
}

/** Archive (versions stay readable; sends must name a version) or restore. */
export function ArchiveButton({ templateId, name, archived }: { templateId: string; name: string; archived: boolean }) {
  const archive = useAction(archiveTemplateAction);
  const restore = useAction(updateTemplateAction);
  const failure = archive.failure ?? restore.failure;
  return (
    <span className="flex flex-col items-end gap-1">
      {archived ? (
        <Button
          variant="secondary"
          pending={restore.isPending}
          onClick={() => restore.mutate({ idOrSlug: templateId, archived: false })}
        >
          Restore
        </Button>
      ) : (
        <ConfirmButton
          label="Archive"
          pending={archive.isPending}
          title={`Archive ${name}?`}
          description="Its versions stay readable, but sends must then name a version. You can restore it later."
          confirmLabel="Archive template"
          onConfirm={() => archive.mutate({ idOrSlug: templateId })}
        />
      )}
      {failure ? (
        <ErrorNotice>
          {failure.message}
          <LogEntryLink failure={failure} />
        </ErrorNotice>
      ) : null}
    </span>
  );
}
