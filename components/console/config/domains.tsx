"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { addDomainAction, checkDnsAction, deleteDomainAction } from "@/lib/console/actions/domains";
import type { Domain } from "@/lib/domains/domain";
import { CopyButton } from "../copy-button";
import { ConfirmButton } from "../dialog";
import { Button, Field, FormError, useAction, useActionForm } from "../form";
import { Details, Mono, StatusBadge, Table, Td, Time } from "../ui";
import { LiveMessage } from "./shared";
import { inputRules } from "@/components/console/contract-input";
import { createDomain } from "@/lib/domains/contracts";

const PURPOSE: Record<Domain["records"][number]["purpose"], string> = {
  mx: "MX",
  spf: "SPF",
  dkim: "DKIM",
  dmarc: "DMARC",
};

/** The "Add domain" form; on success it opens the new domain's DNS records. */
export function AddDomainForm() {
  const router = useRouter();
  const add = useActionForm(addDomainAction, {
    refresh: false,
    onSuccess: ({ domain }) => router.push(`/domains/${domain.id}`),
  });
  return (
    <form {...add.formProps} aria-label="Add a domain" className="grid gap-4 sm:grid-cols-[1fr_auto] sm:items-end">
      <Field
        label="Domain name"
        name="name"
        {...inputRules(createDomain.body, "name")}
        placeholder="agents.example.com"
        autoComplete="off"
        error={add.fieldError("name")}
        hint="A domain or subdomain you control; you will publish four DNS records."
      />
      <Button pending={add.isPending}>Add domain</Button>
      <div className="sm:col-span-2">
        <FormError failure={add.failure && !add.failure.fields.name ? add.failure : null} />
      </div>
    </form>
  );
}

/**
 * While "Check DNS" runs (a lookup of each record can take seconds): an indeterminate progress bar,
 * what is being looked up and for how long, announced politely to screen readers.
 */
function CheckProgress({ domain }: { domain: string }) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setSeconds((s) => s + 1), 1000);
    return () => clearInterval(t);
  }, []);
  return (
    <div role="status" className="space-y-1" data-testid="dns-check-progress">
      <progress
        aria-label={`Checking the DNS records of ${domain}`}
        className="h-1.5 w-full max-w-md accent-zinc-900 dark:accent-zinc-100"
      />
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Looking up the MX, SPF, DKIM and DMARC records of {domain}…
        <span aria-hidden>{seconds > 0 ? ` ${seconds} s` : ""}</span>
      </p>
    </div>
  );
}

/** What a check found, in words: "Verified" or which records are still missing. */
function checkSummary(domain: Domain): { tone: "ok" | "warn"; text: string } {
  const missing = domain.records.filter((r) => r.status !== "verified").map((r) => PURPOSE[r.purpose]);
  if (missing.length === 0)
    return {
      tone: "ok",
      text: domain.status === "verified" ? "Verified: all four records are published." : "All records found.",
    };
  const prefix =
    domain.status === "verified" ? "The domain stays verified, but these records were not found: " : "Still missing: ";
  return { tone: "warn", text: `${prefix}${missing.join(", ")}.` };
}

/** The domain's status, its DNS records with copy buttons, and (for writers) "Check DNS" and delete. */
export function DomainDns({ domain: initial, canWrite }: { domain: Domain; canWrite: boolean }) {
  const router = useRouter();
  const check = useAction(checkDnsAction);
  const remove = useAction(deleteDomainAction, { refresh: false, onSuccess: () => router.push("/domains") });
  const domain = check.data?.domain ?? initial;
  const summary = check.data ? checkSummary(check.data.domain) : null;
  return (
    <div className="space-y-6">
      <Details
        items={[
          ["Status", <StatusBadge key="s" status={domain.status} />],
          ["Kind", domain.isShared ? "Shared domain (verified, read-only)" : "Your domain"],
          ["Added", <Time key="c" value={domain.createdAt} />],
          ["Verified", domain.verifiedAt ? <Time key="v" value={domain.verifiedAt} /> : "Not yet"],
          ["Id", <Mono key="i">{domain.id}</Mono>],
        ]}
      />

      <section aria-labelledby="dns-records" className="space-y-3">
        <h2 id="dns-records" className="text-base font-semibold">
          DNS records
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {domain.isShared
            ? "These records are published by the service."
            : "Publish these records at your DNS provider, then check DNS. Changes can take a while to propagate."}
        </p>
        <Table head={["Type", "Host", "Value", "Status"]} caption={`DNS records of ${domain.name}`}>
          {domain.records.map((r) => (
            <tr key={`${r.purpose}-${r.name}`}>
              <Td>
                <span className="font-medium">{r.type}</span>
                <span className="block text-xs text-zinc-600 dark:text-zinc-400">{PURPOSE[r.purpose]}</span>
              </Td>
              <Td>
                <div className="flex flex-wrap items-start gap-2">
                  <Mono>{r.name}</Mono>
                  <CopyButton value={r.name} label={`Copy ${PURPOSE[r.purpose]} host`} />
                </div>
              </Td>
              <Td className="max-w-md">
                <div className="flex flex-wrap items-start gap-2">
                  <Mono>{r.value}</Mono>
                  <CopyButton value={r.value} label={`Copy ${PURPOSE[r.purpose]} value`} />
                </div>
              </Td>
              <Td>
                <StatusBadge status={r.status} />
              </Td>
            </tr>
          ))}
        </Table>
      </section>

      {canWrite && !domain.isShared ? (
        <section aria-labelledby="dns-check" className="space-y-3">
          <h2 id="dns-check" className="sr-only">
            Check DNS
          </h2>
          <Button type="button" pending={check.isPending} onClick={() => check.mutate({ domainId: domain.id })}>
            {check.isPending ? "Checking DNS…" : "Check DNS"}
          </Button>
          {check.isPending ? (
            <CheckProgress domain={domain.name} />
          ) : (
            <LiveMessage tone={summary?.tone}>{summary?.text}</LiveMessage>
          )}
          <FormError failure={check.failure} />
        </section>
      ) : null}
      {canWrite && !domain.isShared ? (
        <section
          aria-labelledby="danger-zone"
          className="space-y-3 rounded-lg border border-red-200 p-4 dark:border-red-900"
        >
          <h2 id="danger-zone" className="text-base font-semibold">
            Delete this domain
          </h2>
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            Its inboxes must be deleted first. Sending from it stops at once.
          </p>
          <ConfirmButton
            label="Delete domain"
            pending={remove.isPending}
            title={`Delete ${domain.name}?`}
            description="The domain and its DNS records are removed from the service; its inboxes must have been deleted first. This cannot be undone."
            typeToConfirm={domain.name}
            confirmLabel="Delete domain"
            onConfirm={() => remove.mutate({ domainId: domain.id })}
          />
          <FormError failure={remove.failure} />
        </section>
      ) : null}
      {domain.isShared ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          The shared domain is read-only: it cannot be checked again or deleted.
        </p>
      ) : null}
    </div>
  );
}
