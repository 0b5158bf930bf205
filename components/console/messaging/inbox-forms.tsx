"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import {
  createInboxAction,
  deleteInboxAction,
  sendFromInboxAction,
  updateInboxAction,
} from "@/lib/console/actions/inboxes";
import { Button, Field, FormError, formValues, Select, TextArea, useAction, useActionForm } from "../form";
import { ConfirmButton } from "../dialog";
import { ComplaintOverride, complaintSentence, useComplaintOverride } from "./complaint-override";
import { errorFor, formLevel } from "./errors";
import { inputRules } from "@/components/console/contract-input";
import { createInboxBody } from "@/lib/inboxes/contracts";
import { sendMessageBody } from "@/lib/messages/contracts";
import { INBOX_MODE_NOTE, INBOX_MODE_OPTIONS } from "@/lib/console/labels";

/** A domain the create form offers. */
export interface DomainOption {
  name: string;
  isShared: boolean;
}

/** The settings the update form edits. */
export interface InboxSettings {
  id: string;
  displayName: string | null;
  mode: "agent" | "human" | "hybrid";
  agent: string | null;
  status: "active" | "paused" | "deleted";
  updatedAt: string;
}

/** Local part + domain picker (shared domain first and preselected) + optional display name. */
export function CreateInboxForm({ domains }: { domains: DomainOption[] }) {
  const [created, setCreated] = useState<string | null>(null);
  const create = useActionForm(createInboxAction, { reset: true, onSuccess: (inbox) => setCreated(inbox.address) });
  const failure = create.failure;
  return (
    <form
      {...create.formProps}
      aria-label="Create an inbox"
      className="grid gap-4 md:grid-cols-[1fr_auto_14rem] md:items-start"
      onSubmit={(e) => {
        setCreated(null);
        create.formProps.onSubmit(e);
      }}
    >
      <Field
        label="Local part"
        name="localPart"
        maxLength={64}
        required
        autoComplete="off"
        placeholder="support"
        error={errorFor(failure, "localPart", "address")}
      />
      <span aria-hidden className="hidden pt-8 text-lg text-zinc-600 md:block dark:text-zinc-400">
        @
      </span>
      <Select label="Domain" name="domain" defaultValue={domains[0]?.name} error={errorFor(failure, "domain")}>
        {domains.map((d) => (
          <option key={d.name} value={d.name}>
            {d.isShared ? `${d.name} (shared)` : d.name}
          </option>
        ))}
      </Select>
      <div className="md:col-span-3">
        <Field
          label="Display name"
          name="displayName"
          {...inputRules(createInboxBody, "displayName")}
          hint="Optional. Shown as the sender's name."
          error={errorFor(failure, "displayName")}
        />
      </div>
      <div className="flex flex-wrap items-center gap-3 md:col-span-3" aria-live="polite">
        <Button pending={create.isPending}>Create inbox</Button>
        {created ? (
          <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
            Created {created}.
          </p>
        ) : null}
      </div>
      <div className="md:col-span-3">
        <FormError failure={formLevel(failure, ["localPart", "address", "domain", "displayName"])} beside={failure} />
      </div>
    </form>
  );
}

/** Display name, mode, agent and status (pause/resume), as `PATCH /v1/inboxes/{id}` allows. */
export function InboxSettingsForm({ inbox }: { inbox: InboxSettings }) {
  const [saved, setSaved] = useState(false);
  const update = useAction(updateInboxAction, { onSuccess: () => setSaved(true) });
  const failure = update.failure;
  return (
    <form
      key={inbox.updatedAt}
      noValidate
      aria-label="Inbox settings"
      className="grid gap-4 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        const values = formValues(e.currentTarget);
        // Empty text fields clear the value (null), as the API takes it.
        update.mutate({
          inboxId: inbox.id,
          displayName: values.displayName ?? null,
          agent: values.agent ?? null,
          mode: values.mode,
          status: values.status,
        });
      }}
    >
      <Field
        label="Display name"
        name="displayName"
        {...inputRules(createInboxBody, "displayName")}
        defaultValue={inbox.displayName ?? ""}
        hint="Leave empty for none."
        error={errorFor(failure, "displayName")}
      />
      <Field
        label="Agent"
        name="agent"
        {...inputRules(createInboxBody, "agent")}
        defaultValue={inbox.agent ?? ""}
        hint="Optional name of the agent that handles this inbox."
        error={errorFor(failure, "agent")}
      />
      <Select
        label="Mode"
        name="mode"
        defaultValue={inbox.mode}
        hint={INBOX_MODE_NOTE}
        error={errorFor(failure, "mode")}
      >
        {INBOX_MODE_OPTIONS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}: {o.description}
          </option>
        ))}
      </Select>
      <Select
        label="Status"
        name="status"
        defaultValue={inbox.status === "paused" ? "paused" : "active"}
        hint="A paused inbox neither sends nor receives."
        error={errorFor(failure, "status")}
      >
        <option value="active">active (sends and receives)</option>
        <option value="paused">paused</option>
      </Select>
      <div className="flex flex-wrap items-center gap-3 sm:col-span-2" aria-live="polite">
        <Button pending={update.isPending}>Save settings</Button>
        {saved && !update.isPending ? (
          <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
            Settings saved.
          </p>
        ) : null}
      </div>
      <div className="sm:col-span-2">
        <FormError failure={formLevel(failure, ["displayName", "agent", "mode", "status"])} beside={failure} />
      </div>
    </form>
  );
}

/** Deletes the inbox after a confirmation, then goes back to the list. */
export function DeleteInboxForm({ inboxId, address }: { inboxId: string; address: string }) {
  const router = useRouter();
  const remove = useAction(deleteInboxAction, { refresh: false, onSuccess: () => router.push("/inboxes") });
  return (
    <div className="space-y-3">
      <ConfirmButton
        label="Delete inbox"
        pending={remove.isPending}
        title={`Delete ${address}?`}
        description="The inbox stops sending and receiving at once. Its messages stay readable."
        typeToConfirm={address}
        confirmLabel="Delete inbox"
        onConfirm={() => remove.mutate({ inboxId })}
      />
      <FormError failure={remove.failure} />
    </div>
  );
}

type SendOutcome = Awaited<ReturnType<typeof sendFromInboxAction>>;
type Sent = Extract<SendOutcome, { ok: true }>["data"];

/** Recipients as typed: one address, or a list when separated by commas, semicolons or spaces. */
function recipients(raw: unknown): string | string[] | undefined {
  if (typeof raw !== "string") return undefined;
  const list = raw.split(/[,;\s]+/).filter((a) => a !== "");
  return list.length <= 1 ? list[0] : list;
}

/** What happened to a send: sent (with a link to its thread), or failed at the transport. */
export function SendNotice({ sent }: { sent: Sent }) {
  if (sent.status === "failed") {
    return (
      <p
        role="alert"
        className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
      >
        The message could not be delivered ({sent.error ?? "failed"}).{" "}
        <Link className="link" href={`/messages/${sent.id}`}>
          See the message
        </Link>
      </p>
    );
  }
  return (
    <p
      role="status"
      className="rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-200"
    >
      Message {sent.status}.{" "}
      {sent.threadId ? (
        <Link className="link" href={`/threads/${sent.threadId}`}>
          Open the conversation
        </Link>
      ) : (
        <Link className="link" href={`/messages/${sent.id}`}>
          See the message
        </Link>
      )}
    </p>
  );
}

/** A new message from this inbox: To, Subject, Message. */
export function ComposeForm({ inboxId, from }: { inboxId: string; from: string }) {
  const form = useRef<HTMLFormElement>(null);
  const [sent, setSent] = useState<Sent | null>(null);
  const [missingTo, setMissingTo] = useState(false);
  const send = useAction(sendFromInboxAction, {
    onSuccess: (data) => {
      setSent(data);
      form.current?.reset();
    },
  });
  const failure = send.failure;
  // Recipients who complained: the send was refused, and the form offers to send anyway.
  const { complained, offered } = useComplaintOverride(failure, send.isPending);
  return (
    <form
      ref={form}
      noValidate
      aria-label={`Send a message from ${from}`}
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        setSent(null);
        const values = formValues(e.currentTarget);
        const to = recipients(values.to);
        setMissingTo(to === undefined);
        if (to === undefined) return;
        send.mutate({
          inboxId,
          to,
          subject: values.subject,
          text: values.text,
          ...(values.ignoreComplaints === "on" ? { ignoreComplaints: true } : {}),
        });
      }}
    >
      <Field
        label="To"
        name="to"
        type="text"
        inputMode="email"
        autoComplete="off"
        hint="One address, or several separated by commas."
        error={
          missingTo
            ? "Give at least one recipient."
            : complained
              ? complaintSentence(complained)
              : errorFor(failure, "to", "cc", "bcc")
        }
      />
      {offered ? <ComplaintOverride recipients={offered} form="compose" /> : null}
      <Field
        label="Subject"
        name="subject"
        {...inputRules(sendMessageBody, "subject")}
        autoComplete="off"
        error={errorFor(failure, "subject")}
      />
      <TextArea
        label="Message"
        name="text"
        {...inputRules(sendMessageBody, "text")}
        rows={6}
        error={errorFor(failure, "text")}
      />
      <div className="flex flex-wrap items-center gap-3">
        <Button pending={send.isPending}>Send</Button>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">From {from}</span>
      </div>
      <div aria-live="polite">{sent ? <SendNotice sent={sent} /> : null}</div>
      <FormError failure={formLevel(failure, ["to", "cc", "bcc", "subject", "text"])} beside={failure} />
    </form>
  );
}
