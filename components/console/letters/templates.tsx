"use client";

import { useRouter } from "next/navigation";
import { useCallback, useState } from "react";
import {
  createLetterTemplateAction,
  previewLetterTemplateAction,
  updateLetterTemplateAction,
} from "@/lib/console/actions/letters";
import { hasFormLevelError, LiveMessage } from "../config/shared";
import { Button, Field, FormError, Select, TextArea, useAction, useActionForm } from "../form";
import { PdfPreview, type PreviewGeometry, type PreviewResult } from "./pdf-preview";

/** Variable names typed as "greeting, body, closing" → the API's list of names (objects on read). */
export function variableNames(raw: unknown): string[] {
  return typeof raw === "string"
    ? raw
        .split(/[\s,]+/)
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
}

/** Creates a letter template (the starter HTML prefilled) and opens its editor. */
export function CreateLetterTemplateForm({
  starterHtml,
  starterVariables,
}: {
  starterHtml: string;
  starterVariables: string[];
}) {
  const router = useRouter();
  const form = useActionForm(
    (values) => createLetterTemplateAction({ ...values, variables: variableNames(values.variables) }),
    { onSuccess: (d) => router.push(`/letters/templates/${d.id}`) },
  );
  const failure = form.failure;
  return (
    <form {...form.formProps} aria-label="Create a letter template" className="space-y-4">
      <Field label="Name" name="name" required maxLength={200} error={form.fieldError("name")} />
      <TextArea
        label="HTML"
        name="html"
        rows={10}
        defaultValue={starterHtml}
        spellCheck={false}
        className="font-mono text-xs"
        hint="A4 page; {{to.name}}, {{from.city}} and {{anyVariable}} are filled in (escaped) when a letter is rendered. The starter places the address in the left window."
        error={form.fieldError("html")}
      />
      <Field
        label="Variables"
        name="variables"
        defaultValue={starterVariables.join(", ")}
        hint="Names of the template's own placeholders, separated by commas."
        error={form.fieldError("variables")}
      />
      <FormError
        failure={failure && hasFormLevelError(failure.fields, ["name", "html", "variables"]) ? failure : null}
        beside={failure}
      />
      <Button pending={form.isPending}>Create template</Button>
    </form>
  );
}

const SAMPLE_TO = {
  name: "Erika Mustermann",
  street: "Hauptstraße",
  houseNumber: "5",
  postalCode: "10115",
  city: "Berlin",
  country: "DE",
};

/**
 * A letter template's editor: name, HTML, variables and status, saved with PATCH; then the saved
 * template previewed (`POST …/preview`, inline) with sample values: the PDF's page 1 with the
 * checks drawn over it, and every check in words.
 */
export function LetterTemplateEditor({
  template,
  geometry,
  canWrite,
}: {
  template: {
    id: string;
    name: string;
    html: string;
    status: "active" | "archived";
    variables: { name: string; example?: string }[];
  };
  geometry: PreviewGeometry;
  canWrite: boolean;
}) {
  const [result, setResult] = useState<{ preview: PreviewResult; delivery: "standard" | "registered" } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const preview = useAction(previewLetterTemplateAction, { refresh: false });
  const save = useActionForm(
    (values) =>
      updateLetterTemplateAction({
        templateId: template.id,
        name: values.name,
        html: values.html,
        status: values.status,
        variables: variableNames(values.variables),
      }),
    { onSuccess: () => setSaved("Saved. Preview it below to see the PDF and its checks.") },
  );
  const runPreview = useCallback(
    (form: HTMLFormElement) => {
      const data = new FormData(form);
      const str = (k: string) => {
        const v = data.get(k);
        return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
      };
      const to = Object.fromEntries(
        ["name", "company", "street", "houseNumber", "postalCode", "city", "country"].flatMap((k) => {
          const v = str(`to.${k}`);
          return v ? [[k, v]] : [];
        }),
      );
      const templateData = Object.fromEntries(
        template.variables.flatMap((v) => {
          const value = str(`data.${v.name}`);
          return value ? [[v.name, value]] : [];
        }),
      );
      const delivery = str("delivery") === "registered" ? "registered" : "standard";
      preview.mutate(
        {
          templateId: template.id,
          to,
          templateData,
          addressPlacement: str("addressPlacement") === "right" ? "right" : "left",
          delivery,
          output: "inline",
        },
        { onSuccess: (p) => setResult({ preview: p, delivery }) },
      );
    },
    [preview, template.id, template.variables],
  );
  const saveFailure = save.failure;
  return (
    <div className="space-y-8">
      <form {...save.formProps} aria-label="Edit the letter template" className="space-y-4">
        <Field
          label="Name"
          name="name"
          defaultValue={template.name}
          required
          maxLength={200}
          disabled={!canWrite}
          error={save.fieldError("name")}
        />
        <TextArea
          label="HTML"
          name="html"
          rows={14}
          defaultValue={template.html}
          spellCheck={false}
          disabled={!canWrite}
          className="font-mono text-xs"
          hint="{{to.*}}, {{from.*}} and the variables below are filled in, HTML-escaped, when a letter is rendered."
          error={save.fieldError("html")}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Variables"
            name="variables"
            defaultValue={template.variables.map((v) => v.name).join(", ")}
            disabled={!canWrite}
            hint="Names separated by commas."
            error={save.fieldError("variables")}
          />
          <Select label="Status" name="status" defaultValue={template.status} disabled={!canWrite}>
            <option value="active">Active (usable)</option>
            <option value="archived">Archived (cannot be sent or previewed)</option>
          </Select>
        </div>
        <FormError
          failure={
            saveFailure && hasFormLevelError(saveFailure.fields, ["name", "html", "variables", "status"])
              ? saveFailure
              : null
          }
          beside={saveFailure}
        />
        {canWrite ? (
          <Button pending={save.isPending}>Save</Button>
        ) : (
          <p className="text-sm">Your role can read templates but not change them.</p>
        )}
        <LiveMessage>{saved}</LiveMessage>
      </form>

      <form
        aria-label="Preview the letter template"
        className="space-y-4"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          runPreview(e.currentTarget);
        }}
      >
        <h2 className="text-base font-semibold">Preview the saved template</h2>
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          Renders the saved HTML to PDF with these sample values and runs the checks a send runs. Save your changes
          first.
        </p>
        <fieldset className="grid gap-3 sm:grid-cols-3">
          <legend className="mb-2 text-sm font-medium">Sample recipient</legend>
          <Field label="Name" name="to.name" defaultValue={SAMPLE_TO.name} />
          <Field label="Street" name="to.street" defaultValue={SAMPLE_TO.street} />
          <Field label="House number" name="to.houseNumber" defaultValue={SAMPLE_TO.houseNumber} />
          <Field label="Postal code" name="to.postalCode" defaultValue={SAMPLE_TO.postalCode} />
          <Field label="City" name="to.city" defaultValue={SAMPLE_TO.city} />
          <Field label="Country" name="to.country" defaultValue={SAMPLE_TO.country} maxLength={2} />
        </fieldset>
        {template.variables.length > 0 ? (
          <fieldset className="grid gap-3 sm:grid-cols-2">
            <legend className="mb-2 text-sm font-medium">Sample values</legend>
            {template.variables.map((v) => (
              <Field
                key={v.name}
                label={v.name}
                name={`data.${v.name}`}
                defaultValue={v.example ?? `Sample ${v.name}`}
              />
            ))}
          </fieldset>
        ) : null}
        <div className="grid gap-3 sm:grid-cols-2">
          <Select label="Address window" name="addressPlacement" defaultValue="left">
            <option value="left">Left</option>
            <option value="right">Right</option>
          </Select>
          <Select label="Delivery" name="delivery" defaultValue="standard">
            <option value="standard">Standard</option>
            <option value="registered">Registered (domestic only)</option>
          </Select>
        </div>
        <FormError failure={preview.failure} />
        <Button pending={preview.isPending}>Preview</Button>
      </form>
      {result ? <PdfPreview result={result.preview} geometry={geometry} delivery={result.delivery} /> : null}
    </div>
  );
}
