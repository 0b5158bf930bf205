"use client";

import { useId, useRef, useState } from "react";
import { createKeyAction, revokeKeyAction } from "@/lib/console/actions/api-keys";
import type { Scope } from "@/lib/auth/scopes";
import type { ScopeChoices, ScopePresets } from "@/lib/console/pickers";
import { Button, Field, FormError, formValues, Select, TextArea, useAction } from "../form";
import { ConfirmButton } from "../dialog";
import { arrayFieldErrors, GroupErrors, hasFormLevelError, OnceSecret } from "./shared";
import { inputRules } from "@/components/console/contract-input";
import { createApiKeyBody } from "@/lib/api-keys/contracts";

const FIELDS = ["name", "scopes", "allowedIps", "inboxIds", "environment"];

/** What a bundle grants, in words. */
function grants(scope: Scope, bundles: ScopeChoices["bundles"]): string | null {
  if (scope === "admin") return "grants every scope";
  const granted = bundles[scope];
  return granted ? `grants ${granted.join(", ")}` : null;
}

const PRESETS: { key: keyof ScopePresets; label: string }[] = [
  { key: "full", label: "Full access" },
  { key: "sending", label: "Sending only" },
  { key: "readOnly", label: "Read only" },
];

/** One scope checkbox, labelled by the scope name exactly; a bundle says what it grants. */
function ScopeCheckbox({ scope, bundles }: { scope: Scope; bundles: ScopeChoices["bundles"] }) {
  const id = useId();
  const text = grants(scope, bundles);
  return (
    <div className="flex items-start gap-2">
      <input
        id={id}
        type="checkbox"
        name="scopes"
        value={scope}
        aria-describedby={text ? `${id}-grants` : undefined}
        className="mt-0.5 size-4"
      />
      <div className="text-sm">
        <label htmlFor={id} className="font-mono">
          {scope}
        </label>
        {text ? (
          <span id={`${id}-grants`} className="ml-1 text-zinc-600 dark:text-zinc-400">
            — {text}
          </span>
        ) : null}
      </div>
    </div>
  );
}

/** Lines of the allowlist textarea as entries (blank lines dropped). */
function ipLines(raw: unknown): string[] {
  return typeof raw === "string"
    ? raw
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
}

/** The create-key form (name, scopes, IP allowlist, inbox restriction); shows the new secret once. */
export function CreateKeyForm({
  inboxes,
  scopes,
}: {
  inboxes: { id: string; address: string }[];
  scopes: ScopeChoices;
}) {
  const form = useRef<HTMLFormElement>(null);
  const uid = useId();
  const [secret, setSecret] = useState<string | null>(null);
  const [sentIps, setSentIps] = useState<string[]>([]);
  const create = useAction(createKeyAction, {
    onSuccess: (result) => {
      setSecret(result.secret);
      form.current?.reset();
    },
  });
  const fields = create.failure?.fields;
  const scopeErrors = arrayFieldErrors(fields, "scopes", (i) => `Scope ${i + 1}`);
  const inboxErrors = arrayFieldErrors(fields, "inboxIds", (i) => `Inbox ${i + 1}`);
  const ipErrors = arrayFieldErrors(fields, "allowedIps", (i) => `“${sentIps[i] ?? `entry ${i + 1}`}”`);
  return (
    <div className="space-y-6">
      {secret ? (
        <OnceSecret
          title="Your new API key"
          secret={secret}
          testId="new-key-secret"
          onDismiss={() => setSecret(null)}
        />
      ) : null}
      <form
        ref={form}
        noValidate
        aria-label="Create an API key"
        className="space-y-5"
        onSubmit={(e) => {
          e.preventDefault();
          const values = formValues(e.currentTarget, ["scopes", "inboxIds"]);
          const ips = ipLines(values.allowedIps);
          const inboxIds = Array.isArray(values.inboxIds) ? values.inboxIds : [];
          setSentIps(ips);
          setSecret(null);
          create.mutate({
            name: values.name,
            scopes: values.scopes,
            environment: values.environment,
            ...(ips.length > 0 ? { allowedIps: ips } : {}),
            ...(inboxIds.length > 0 ? { inboxIds } : {}),
          });
        }}
      >
        <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
          <Field
            label="Name"
            name="name"
            {...inputRules(createApiKeyBody, "name")}
            autoComplete="off"
            placeholder="ci-deploy"
            error={create.fieldError("name")}
          />
          <Select label="Environment" name="environment" defaultValue="live" error={create.fieldError("environment")}>
            <option value="live">live</option>
            <option value="test">test</option>
          </Select>
        </div>

        <fieldset className="space-y-3" aria-describedby={scopeErrors.length > 0 ? `${uid}-scopes-error` : undefined}>
          <legend className="text-sm font-medium">Scopes</legend>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            Pick at least one, or start from a preset. A bundle grants the scopes it lists.
          </p>
          <div className="flex flex-wrap gap-2" role="group" aria-label="Scope presets">
            {PRESETS.filter((p) => scopes.presets[p.key].length > 0).map((p) => (
              <Button
                key={p.key}
                type="button"
                variant="secondary"
                title={scopes.presets[p.key].join(", ")}
                onClick={() => {
                  const chosen = new Set<string>(scopes.presets[p.key]);
                  for (const box of form.current?.querySelectorAll<HTMLInputElement>('input[name="scopes"]') ?? [])
                    box.checked = chosen.has(box.value);
                }}
              >
                {p.label}
              </Button>
            ))}
          </div>
          <div className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-3">
            {scopes.groups.map((g) => (
              <div key={g.name} role="group" aria-label={`${g.name} scopes`} className="space-y-1.5">
                <p className="text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">{g.name}</p>
                {g.scopes.map((s) => (
                  <ScopeCheckbox key={s} scope={s} bundles={scopes.bundles} />
                ))}
              </div>
            ))}
          </div>
          <GroupErrors id={`${uid}-scopes-error`} messages={scopeErrors} />
        </fieldset>

        <TextArea
          label="Allowed IPs"
          name="allowedIps"
          rows={3}
          placeholder={"203.0.113.7\n2001:db8::/32"}
          hint="One IPv4 or IPv6 address or CIDR range per line. Leave empty to allow any address."
          error={ipErrors.length > 0 ? ipErrors.join(" ") : undefined}
        />

        <fieldset className="space-y-2" aria-describedby={`${uid}-inboxes-hint`}>
          <legend className="text-sm font-medium">Inboxes</legend>
          <p id={`${uid}-inboxes-hint`} className="text-xs text-zinc-600 dark:text-zinc-400">
            {inboxes.length === 0
              ? "No inboxes yet: the key may send as any inbox."
              : "Restrict the inboxes the key may send as. Leave all unchecked for any inbox."}
          </p>
          <div className="grid gap-1.5 sm:grid-cols-2">
            {inboxes.map((inbox) => (
              <label key={inbox.id} className="flex items-center gap-2 text-sm">
                <input type="checkbox" name="inboxIds" value={inbox.id} className="size-4" />
                {inbox.address}
              </label>
            ))}
          </div>
          <GroupErrors id={`${uid}-inboxes-error`} messages={inboxErrors} />
        </fieldset>

        <FormError
          failure={create.failure && hasFormLevelError(create.failure.fields, FIELDS) ? create.failure : null}
          beside={create.failure}
        />
        <Button pending={create.isPending}>Create key</Button>
      </form>
    </div>
  );
}

/** Revokes one key after a confirmation; errors show beside the button. */
export function RevokeKeyButton({ keyId, name }: { keyId: string; name: string }) {
  const revoke = useAction(revokeKeyAction);
  return (
    <div className="space-y-1">
      <ConfirmButton
        variant="danger"
        label="Revoke"
        ariaLabel={`Revoke ${name}`}
        pending={revoke.isPending}
        title={`Revoke the key “${name}”?`}
        description="Requests with this key fail at once. This cannot be undone: a revoked key cannot be restored."
        typeToConfirm={name}
        confirmLabel="Revoke key"
        onConfirm={() => revoke.mutate({ keyId })}
      />
      <FormError failure={revoke.failure} />
    </div>
  );
}
