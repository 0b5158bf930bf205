"use client";

import { useState } from "react";
import {
  cancelWaitAction,
  deleteInboxSchemaAction,
  discardMessageAction,
  releaseMessageAction,
  setInboxSchemaAction,
  testInboxSchemaAction,
} from "@/lib/console/actions/inbox-automation";
import { ConfirmButton } from "../dialog";
import { Button, FormError, Select, TextArea, useAction } from "../form";
import { Badge, Mono } from "../ui";

/** Cancels one pending verification wait. */
export function CancelWaitButton({ waitId }: { waitId: string }) {
  const cancel = useAction(cancelWaitAction);
  return (
    <div className="space-y-2">
      <Button
        type="button"
        variant="secondary"
        pending={cancel.isPending}
        aria-label={`Cancel wait ${waitId}`}
        onClick={() => cancel.mutate({ waitId })}
      >
        Cancel
      </Button>
      <FormError failure={cancel.failure} />
    </div>
  );
}

/** Release or discard one quarantined message. */
export function QuarantineActions({ messageId, label }: { messageId: string; label: string }) {
  const release = useAction(releaseMessageAction);
  const discard = useAction(discardMessageAction);
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          pending={release.isPending}
          aria-label={`Release ${label}`}
          onClick={() => release.mutate({ messageId })}
        >
          Release
        </Button>
        <ConfirmButton
          label="Discard"
          ariaLabel={`Discard ${label}`}
          title="Discard this message?"
          description="The message and its attachments are deleted. This cannot be undone."
          confirmLabel="Discard message"
          pending={discard.isPending}
          onConfirm={() => discard.mutate({ messageId })}
        />
      </div>
      <FormError failure={release.failure ?? discard.failure} />
    </div>
  );
}

type TestResult = Extract<Awaited<ReturnType<typeof testInboxSchemaAction>>, { ok: true }>["data"];

const STATUS_TONE = { validated: "green", passthrough: "yellow", quarantined: "red", error: "red" } as const;

/** Parses the editor's JSON; null and a message when it is not an object. */
function parseSchema(text: string): { value: Record<string, unknown> | null; error: string | null } {
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      return { value: null, error: "The schema is a JSON object of field names to types." };
    }
    return { value: value as Record<string, unknown>, error: null };
  } catch {
    return { value: null, error: "The schema is not valid JSON." };
  }
}

/**
 * The schema editor: the flat contract as JSON, the validation policy and the LLM hint; Save
 * stores it (`setInboxSchema`), Remove deletes it. The test pane runs the editor's draft on a
 * pasted message through `testInboxSchema`, the same extraction inbound messages get.
 */
export function SchemaEditor({
  inboxId,
  initial,
  writable,
}: {
  inboxId: string;
  initial: {
    schema: Record<string, unknown>;
    onValidationError: "quarantine" | "passthrough";
    extractionHint: string | null;
  } | null;
  writable: boolean;
}) {
  const [text, setText] = useState(
    JSON.stringify(initial?.schema ?? { orderId: { type: "integer", required: true }, customer: "string" }, null, 2),
  );
  const [policy, setPolicy] = useState<"quarantine" | "passthrough">(initial?.onValidationError ?? "quarantine");
  const [hint, setHint] = useState(initial?.extractionHint ?? "");
  const [sample, setSample] = useState("");
  const [localError, setLocalError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [result, setResult] = useState<TestResult | null>(null);
  const save = useAction(setInboxSchemaAction, { onSuccess: () => setSaved(true) });
  const remove = useAction(deleteInboxSchemaAction);
  const test = useAction(testInboxSchemaAction, { refresh: false, onSuccess: (data) => setResult(data) });

  const draft = () => {
    const parsed = parseSchema(text);
    setLocalError(parsed.error);
    if (!parsed.value) return null;
    return {
      inboxId,
      schema: parsed.value,
      onValidationError: policy,
      extractionHint: hint.trim() === "" ? null : hint,
    };
  };
  const schemaError = localError ?? save.fieldError("schema") ?? test.fieldError("schema") ?? undefined;

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <form
        noValidate
        className="min-w-0 space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          const body = draft();
          if (body) save.mutate(body);
        }}
      >
        <TextArea
          label="Schema (JSON)"
          name="schema"
          rows={12}
          spellCheck={false}
          className="font-mono text-xs"
          value={text}
          onChange={(e) => setText(e.target.value)}
          error={schemaError}
          hint='Field names to types: "string", "number", "integer", "boolean", "email", "url", "date", {"type": "enum", "values": […]}, {"type": "array", "items": …}; add "required": true in the object form.'
          disabled={!writable}
        />
        <Select
          label="When a message does not validate"
          name="onValidationError"
          value={policy}
          onChange={(e) => setPolicy(e.target.value === "passthrough" ? "passthrough" : "quarantine")}
          disabled={!writable}
        >
          <option value="quarantine">Quarantine it (held until released)</option>
          <option value="passthrough">Deliver it with the errors attached</option>
        </Select>
        <TextArea
          label="Extraction hint (LLM extractor only)"
          name="extractionHint"
          rows={2}
          maxLength={1000}
          value={hint}
          onChange={(e) => setHint(e.target.value)}
          error={save.fieldError("extractionHint")}
          disabled={!writable}
        />
        {writable ? (
          <div className="flex flex-wrap items-center gap-2">
            <Button pending={save.isPending}>Save schema</Button>
            {initial ? (
              <ConfirmButton
                label="Remove schema"
                title="Remove the schema?"
                description="Later messages are no longer extracted; stored messages keep their extraction."
                confirmLabel="Remove schema"
                pending={remove.isPending}
                onConfirm={() => remove.mutate({ inboxId })}
              />
            ) : null}
            {saved && !save.isPending ? (
              <span role="status" className="text-sm text-green-800 dark:text-green-300">
                Saved.
              </span>
            ) : null}
          </div>
        ) : null}
        <FormError failure={save.failure ?? remove.failure} />
      </form>

      <form
        noValidate
        className="min-w-0 space-y-4"
        aria-label="Test the schema"
        onSubmit={(e) => {
          e.preventDefault();
          const body = draft();
          if (body) test.mutate({ ...body, text: sample });
        }}
      >
        <TextArea
          label="Test message (text)"
          name="text"
          rows={8}
          value={sample}
          onChange={(e) => setSample(e.target.value)}
          hint="Paste a message body: JSON, or key: value lines. Nothing is stored."
          error={test.fieldError("text")}
        />
        <Button type="submit" variant="secondary" pending={test.isPending}>
          Run extraction
        </Button>
        <FormError failure={test.failure && !test.fieldError("schema") ? test.failure : null} />
        {result ? (
          <section aria-live="polite" aria-label="Extraction result" className="space-y-3 text-sm">
            <p>
              Outcome: <Badge tone={STATUS_TONE[result.extractionStatus]}>{result.extractionStatus}</Badge>
            </p>
            <pre className="overflow-x-auto rounded border border-zinc-200 bg-zinc-50 p-3 text-xs dark:border-zinc-800 dark:bg-zinc-900">
              {JSON.stringify(result.structured, null, 2)}
            </pre>
            {result.extractionErrors?.length ? (
              <ul className="list-disc space-y-1 pl-5">
                {result.extractionErrors.map((e) => (
                  <li key={`${e.field}:${e.message}`}>
                    {e.field ? <Mono>{e.field}</Mono> : "message"}: {e.message}
                  </li>
                ))}
              </ul>
            ) : (
              <p>No validation errors.</p>
            )}
          </section>
        ) : null}
      </form>
    </div>
  );
}
