"use client";

import { useState } from "react";
import {
  connectWithCredentialAction,
  disconnectCredentialAction,
  installUrlAction,
} from "@/lib/console/actions/connections";
import { CopyButton } from "./copy-button";
import { ConfirmButton } from "./dialog";
import { Button, Field, FormError, Select, useAction, useActionForm } from "./form";
import { LocalTime } from "./local-time";
import { errorFor, formLevel } from "./messaging/errors";

/** A credential form (a bot token): the channel's connect operation; Telegram's refusal reads on the field. */
export function CredentialConnectForm({
  inboxId,
  channel,
  label,
  fieldLabel,
  hint,
  submit,
}: {
  inboxId: string;
  channel: string;
  label: string;
  fieldLabel: string;
  hint: string;
  submit: string;
}) {
  const connect = useActionForm(connectWithCredentialAction, { reset: true, extra: () => ({ inboxId, channel }) });
  const failure = connect.failure;
  return (
    <form {...connect.formProps} aria-label={`Connect a ${label}`} className="space-y-3">
      <Field
        label={fieldLabel}
        name="credential"
        type="password"
        autoComplete="off"
        spellCheck={false}
        required
        hint={hint}
        error={errorFor(failure, "credential")}
      />
      <Button pending={connect.isPending}>{submit}</Button>
      <FormError failure={formLevel(failure, ["credential"])} beside={failure} />
    </form>
  );
}

/** Disconnects the channel's credential connection, after a confirmation (secondary, last in its row). */
export function CredentialDisconnectButton({
  inboxId,
  channel,
  name,
  note,
}: {
  inboxId: string;
  channel: string;
  name: string;
  note: string;
}) {
  const disconnect = useAction(disconnectCredentialAction);
  return (
    <div className="space-y-2">
      <ConfirmButton
        label="Disconnect"
        ariaLabel={`Disconnect ${name}`}
        title={`Disconnect ${name}?`}
        description={note}
        confirmLabel="Disconnect"
        pending={disconnect.isPending}
        onConfirm={() => disconnect.mutate({ inboxId, channel })}
      />
      <FormError failure={disconnect.failure} />
    </div>
  );
}

/** Picks one of the organization's apps and mints its install link for this inbox, shown with a copy button. */
export function InstallLinkForm({
  inboxId,
  channel,
  label,
  apps,
  hint,
}: {
  inboxId: string;
  channel: string;
  label: string;
  apps: { id: string; label: string }[];
  hint: string;
}) {
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  const mint = useActionForm(installUrlAction, {
    refresh: false,
    extra: () => ({ inboxId, channel }),
    onSuccess: setLink,
  });
  const failure = mint.failure;
  return (
    <div className="space-y-3">
      <form
        {...mint.formProps}
        aria-label={`Get an install link for ${label}`}
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          setLink(null);
          mint.formProps.onSubmit(e);
        }}
      >
        <div className="min-w-0 flex-1 basis-56">
          <Select label="App" name="app" defaultValue={apps[0]?.id} error={errorFor(failure, "app")}>
            {apps.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label}
              </option>
            ))}
          </Select>
        </div>
        <Button pending={mint.isPending}>Get install link</Button>
      </form>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">{hint}</p>
      <FormError failure={formLevel(failure, ["app"])} beside={failure} />
      <div aria-live="polite">
        {link ? (
          <div className="space-y-2 rounded border border-zinc-200 p-3 dark:border-zinc-700">
            <p className="text-sm font-medium">Install link</p>
            <p className="font-mono text-xs break-all">{link.url}</p>
            <p className="flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
              <CopyButton value={link.url} label="Copy link" />
              <span>
                Expires <LocalTime iso={link.expiresAt} />.
              </span>
            </p>
          </div>
        ) : null}
      </div>
    </div>
  );
}
