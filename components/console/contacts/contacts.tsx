"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import {
  addHandleAction,
  createContactAction,
  deleteContactAction,
  removeHandleAction,
  updateContactAction,
  updateHandleAction,
} from "@/lib/console/actions/contacts";
import { HANDLE_KINDS, type HandleKind, handleExample } from "@/lib/channels/definitions";
import { updateContact } from "@/lib/contacts/contracts";
import { Button, Field, FormError, LogEntryLink, Select, TextArea, useAction } from "../form";
import { inputRules } from "../contract-input";
import { formLevel } from "../messaging/errors";
import { ErrorNotice } from "../ui";
import { formText } from "../form-text";
import { ConfirmButton } from "../dialog";
import { channelLabel } from "@/lib/console/labels";

type FormChannel = HandleKind;
/**
 * The handle kinds a handle can be added for here (`HANDLE_KINDS`, from the channel registry): those
 * with a one-line value; postal handles need an address form (the API takes them).
 */
export const FORM_CHANNELS = HANDLE_KINDS.filter((k) => handleExample(k) !== null);
const VALUE_HINT = (kind: FormChannel) => handleExample(kind) ?? "";
/** The first kind of the form: the first channel's. */
const FIRST_KIND: FormChannel = HANDLE_KINDS[0];

/** A new contact with an optional first handle (primary); opens the contact. */
export function NewContactForm() {
  const router = useRouter();
  const [channel, setChannel] = useState<FormChannel>(FIRST_KIND);
  const create = useAction(createContactAction, {
    refresh: false,
    onSuccess: (data) => router.push(`/contacts/${data.id}`),
  });
  const handleError = create.failure
    ? Object.entries(create.failure.fields).find(([k]) => k.startsWith("handles"))?.[1]
    : undefined;
  return (
    <form
      aria-label="New contact"
      noValidate
      className="grid gap-3 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const str = formText(data);
        create.mutate({
          displayName: str("displayName"),
          ...(str("alias") ? { alias: str("alias") } : {}),
          kind: str("kind") || "person",
          ...(str("value") ? { handles: [{ channel, value: str("value"), isPrimary: true }] } : {}),
        });
      }}
    >
      <Field
        label="Name"
        name="displayName"
        required
        maxLength={200}
        error={create.fieldError("displayName")}
        placeholder="Ada Lovelace"
      />
      <Field
        label="Alias (optional)"
        name="alias"
        maxLength={64}
        error={create.fieldError("alias")}
        hint="Sends can address the contact as @alias."
      />
      <Select label="Kind" name="kind" defaultValue="person">
        <option value="person">person</option>
        <option value="agent">agent</option>
      </Select>
      <Select
        label="First handle's channel"
        name="channel"
        value={channel}
        onChange={(e) => setChannel(e.currentTarget.value as FormChannel)}
      >
        {FORM_CHANNELS.map((c) => (
          <option key={c} value={c}>
            {channelLabel(c)}
          </option>
        ))}
      </Select>
      <div className="sm:col-span-2">
        <Field
          label="First handle (optional)"
          name="value"
          maxLength={500}
          placeholder={VALUE_HINT(channel)}
          error={handleError}
        />
      </div>
      <div className="space-y-3 sm:col-span-2">
        <Button pending={create.isPending}>Create contact</Button>
        <FormError failure={create.failure} />
      </div>
    </form>
  );
}

/** Name, alias and info of a contact; an emptied alias or info is cleared. */
export function EditContactForm({
  contact,
}: {
  contact: { id: string; displayName: string; alias: string | null; info: string | null };
}) {
  const [saved, setSaved] = useState(false);
  const update = useAction(updateContactAction, { onSuccess: () => setSaved(true) });
  const body = updateContact.body;
  return (
    <form
      aria-label="Edit contact"
      noValidate
      className="grid gap-3 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        const str = formText(new FormData(e.currentTarget));
        update.mutate({
          contactRef: contact.id,
          displayName: str("displayName"),
          alias: str("alias") || null,
          info: str("info") || null,
        });
      }}
    >
      <Field
        label="Name"
        name="displayName"
        {...inputRules(body, "displayName")}
        required
        defaultValue={contact.displayName}
        error={update.fieldError("displayName")}
      />
      <Field
        label="Alias (optional)"
        name="alias"
        maxLength={64}
        defaultValue={contact.alias ?? ""}
        error={update.fieldError("alias")}
        hint="Sends can address the contact as @alias. Empty it to remove the alias."
      />
      <div className="sm:col-span-2">
        <TextArea
          label="Info (optional)"
          name="info"
          {...inputRules(body, "info")}
          rows={3}
          defaultValue={contact.info ?? ""}
          error={update.fieldError("info")}
        />
      </div>
      <div className="flex flex-wrap items-center gap-3 sm:col-span-2" aria-live="polite">
        <Button pending={update.isPending}>Save changes</Button>
        {saved && !update.isPending ? (
          <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
            Saved.
          </p>
        ) : null}
      </div>
      <div className="sm:col-span-2">
        <FormError failure={formLevel(update.failure, ["displayName", "alias", "info"])} beside={update.failure} />
      </div>
    </form>
  );
}

/** Adds a handle to a contact. */
export function AddHandleForm({ contactId }: { contactId: string }) {
  const [channel, setChannel] = useState<FormChannel>(FIRST_KIND);
  const add = useAction(addHandleAction);
  return (
    <form
      aria-label="Add a handle"
      noValidate
      className="grid gap-3 sm:grid-cols-[10rem_1fr_10rem]"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const data = new FormData(form);
        const text = formText(data);
        const label = text("label");
        add.mutate(
          {
            contactRef: contactId,
            channel,
            value: text("value"),
            ...(label ? { label } : {}),
            isPrimary: data.get("isPrimary") === "true",
          },
          { onSuccess: () => form.reset() },
        );
      }}
    >
      <Select
        label="Channel"
        name="channel"
        value={channel}
        onChange={(e) => setChannel(e.currentTarget.value as FormChannel)}
      >
        {FORM_CHANNELS.map((c) => (
          <option key={c} value={c}>
            {channelLabel(c)}
          </option>
        ))}
      </Select>
      <Field
        label="Value"
        name="value"
        required
        maxLength={500}
        placeholder={VALUE_HINT(channel)}
        error={add.fieldError("value")}
      />
      <Field label="Label (optional)" name="label" maxLength={100} placeholder="work" error={add.fieldError("label")} />
      <label className="flex items-center gap-2 text-sm sm:col-span-3">
        <input type="checkbox" name="isPrimary" value="true" /> Make it the primary {channelLabel(channel)} handle
      </label>
      <div className="space-y-3 sm:col-span-3">
        <Button pending={add.isPending}>Add handle</Button>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          Postal addresses are added through the API (they need the address fields).
        </p>
        <FormError failure={add.failure} />
      </div>
    </form>
  );
}

/** Make primary and Remove on a handle's row. */
export function HandleActions({
  contactId,
  handleId,
  value,
  isPrimary,
}: {
  contactId: string;
  handleId: string;
  value: string;
  isPrimary: boolean;
}) {
  const primary = useAction(updateHandleAction);
  const remove = useAction(removeHandleAction);
  const failure = primary.failure ?? remove.failure;
  return (
    <span className="flex flex-wrap items-center gap-2">
      {!isPrimary ? (
        <Button
          variant="secondary"
          pending={primary.isPending}
          onClick={() => primary.mutate({ contactRef: contactId, handleId, isPrimary: true })}
          aria-label={`Make primary: ${value}`}
        >
          Make primary
        </Button>
      ) : null}
      <ConfirmButton
        variant="secondary"
        label="Remove"
        ariaLabel={`Remove ${value}`}
        pending={remove.isPending}
        title={`Remove ${value} from this contact?`}
        description="Sends to this contact stop using this handle. Messages already exchanged stay."
        confirmLabel="Remove handle"
        onConfirm={() => remove.mutate({ contactRef: contactId, handleId })}
      />
      {failure ? (
        <ErrorNotice>
          {failure.message}
          <LogEntryLink failure={failure} />
        </ErrorNotice>
      ) : null}
    </span>
  );
}

/** Deletes the contact and its handles; back to the list. */
export function DeleteContactButton({ contactId, name }: { contactId: string; name: string }) {
  const router = useRouter();
  const remove = useAction(deleteContactAction, { refresh: false, onSuccess: () => router.push("/contacts") });
  return (
    <span className="flex flex-col items-end gap-1">
      <ConfirmButton
        label="Delete contact"
        pending={remove.isPending}
        title={`Delete ${name}?`}
        description="The contact and their handles are deleted; messages stay. This cannot be undone."
        confirmLabel="Delete contact"
        typeToConfirm={name}
        onConfirm={() => remove.mutate({ contactRef: contactId })}
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
