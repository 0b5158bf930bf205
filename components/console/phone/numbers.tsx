"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import {
  placeCallAction,
  provisionNumberAction,
  releaseNumberAction,
  searchNumbersAction,
  updateNumberAction,
} from "@/lib/console/actions/phone";
import type { PhoneNumber } from "@/lib/phone/contracts";
import { LiveMessage } from "../config/shared";
import { ConfirmButton } from "../dialog";
import { Button, Field, FormError, Select, TextArea, useAction, useActionForm } from "../form";
import { EmptyState, Mono, Table, Td } from "../ui";
import { capabilityWords, NUMBER_TYPE_WORDS, usd } from "./words";

/** The voices a call or a number's assistant can use (`GET /v1/phone/voices`), passed by the page. */
export interface VoiceChoice {
  voiceId: string;
  name: string;
}

const COUNTRIES = [
  { code: "US", name: "United States" },
  { code: "CA", name: "Canada" },
  { code: "GB", name: "United Kingdom" },
];

/** What a provisioned number's outstanding requirements ask for, in words. */
export function requirementWords(requirements: Record<string, unknown>): string[] {
  const docs: unknown = requirements.documents;
  if (Array.isArray(docs)) {
    return (docs as unknown[]).map((d) => {
      const doc = (d ?? {}) as { description?: unknown; type?: unknown };
      if (typeof doc.description === "string") return doc.description;
      return typeof doc.type === "string" ? doc.type.replace(/_/g, " ") : "a document";
    });
  }
  return Object.keys(requirements).map((k) => k.replace(/_/g, " "));
}

/** Search the carrier's inventory by country, type and digits; each purchasable number can be provisioned. */
export function NumberSearch({ canWrite }: { canWrite: boolean }) {
  const search = useActionForm(searchNumbersAction, { refresh: false });
  const provision = useAction(provisionNumberAction);
  const [provisioned, setProvisioned] = useState<Record<string, PhoneNumber>>({});
  const [last, setLast] = useState<PhoneNumber | null>(null);
  const results = search.data?.data ?? null;
  const knownFields = ["country", "type", "contains"];
  const searchFailure = search.failure && !knownFields.some((f) => search.failure?.fields[f]) ? search.failure : null;
  return (
    <div className="space-y-4">
      <form
        {...search.formProps}
        aria-label="Search available numbers"
        className="grid gap-4 sm:grid-cols-[1fr_1fr_1fr_auto] sm:items-end"
      >
        <Select label="Country" name="country" defaultValue="US" error={search.fieldError("country")}>
          {COUNTRIES.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </Select>
        <Select label="Type" name="type" defaultValue="" error={search.fieldError("type")}>
          <option value="">Any type</option>
          {Object.entries(NUMBER_TYPE_WORDS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </Select>
        <Field
          label="Contains digits"
          name="contains"
          inputMode="numeric"
          autoComplete="off"
          placeholder="555"
          error={search.fieldError("contains")}
        />
        <Button pending={search.isPending}>Search</Button>
      </form>
      <FormError failure={searchFailure} />
      <FormError failure={provision.failure} />
      <LiveMessage tone={last?.status === "pending" ? "warn" : "ok"}>
        {last
          ? last.status === "pending"
            ? `${last.phoneNumber} is provisioned but pending: the carrier needs ${requirementWords(last.requirements).join(" ")}`
            : `${last.phoneNumber} is provisioned and active. Bind it to an inbox below to send and receive SMS.`
          : null}
      </LiveMessage>
      {results === null ? null : results.length === 0 ? (
        <EmptyState
          title="No numbers available"
          description="The carrier has no free numbers matching this search; try another type or fewer digits."
        />
      ) : (
        <Table head={["Number", "Where", "Type", "Capabilities", "Monthly", "Setup", ""]} caption="Available numbers">
          {results.map((n) => {
            const done = provisioned[n.phoneNumber];
            return (
              <tr key={n.phoneNumber}>
                <Td>
                  <Mono>{n.phoneNumber}</Mono>
                </Td>
                <Td>{[n.locality, n.region].filter(Boolean).join(", ") || "—"}</Td>
                <Td>{NUMBER_TYPE_WORDS[n.numberType]}</Td>
                <Td>{capabilityWords(n.capabilities)}</Td>
                <Td>{usd(n.monthlyCostUsd)}</Td>
                <Td>{usd(n.setupCostUsd)}</Td>
                <Td>
                  {done ? (
                    <span className="text-emerald-800 dark:text-emerald-300">Provisioned</span>
                  ) : !n.purchasable ? (
                    <span className="text-zinc-600 dark:text-zinc-400">
                      Not purchasable until the carrier account is verified
                    </span>
                  ) : canWrite ? (
                    <Button
                      type="button"
                      variant="secondary"
                      pending={
                        provision.isPending &&
                        (provision.variables as { phoneNumber?: string } | undefined)?.phoneNumber === n.phoneNumber
                      }
                      disabled={provision.isPending}
                      aria-label={`Provision ${n.phoneNumber}`}
                      onClick={() =>
                        provision.mutate(
                          { phoneNumber: n.phoneNumber },
                          {
                            onSuccess: (number) => {
                              setProvisioned((p) => ({ ...p, [n.phoneNumber]: number }));
                              setLast(number);
                            },
                          },
                        )
                      }
                    >
                      Provision
                    </Button>
                  ) : (
                    <span className="text-zinc-600 dark:text-zinc-400">Admins can provision</span>
                  )}
                </Td>
              </tr>
            );
          })}
        </Table>
      )}
    </div>
  );
}

/** A number's inbox binding (select + save) and its release (last, with confirmation). */
export function NumberActions({
  number,
  inboxes,
  agents,
  voices,
}: {
  number: PhoneNumber;
  inboxes: { id: string; address: string }[];
  agents: { id: string; display: string }[];
  voices: VoiceChoice[];
}) {
  const [inboxId, setInboxId] = useState(number.inboxId ?? "");
  const [agentId, setAgentId] = useState(number.agentId ?? "");
  const update = useAction(updateNumberAction);
  const bindAgent = useAction(updateNumberAction);
  const release = useAction(releaseNumberAction);
  const changed = inboxId !== (number.inboxId ?? "");
  const agentChanged = agentId !== (number.agentId ?? "");
  if (number.status === "released" || number.status === "releasing") {
    return <span className="text-zinc-600 dark:text-zinc-400">No actions</span>;
  }
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-end gap-2">
        <form
          className="flex flex-wrap items-end gap-2"
          aria-label={`Bind ${number.phoneNumber} to an inbox`}
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate({ numberId: number.id, inboxId: inboxId === "" ? null : inboxId });
          }}
        >
          <Select
            label={
              <>
                Inbox<span className="sr-only"> of {number.phoneNumber}</span>
              </>
            }
            className="min-w-44"
            value={inboxId}
            onChange={(e) => setInboxId(e.target.value)}
            error={update.failure?.fields.inboxId}
          >
            <option value="">Not bound (no SMS)</option>
            {inboxes.map((i) => (
              <option key={i.id} value={i.id}>
                {i.address}
              </option>
            ))}
          </Select>
          <Button
            variant="secondary"
            pending={update.isPending}
            disabled={!changed}
            aria-label={`Save inbox of ${number.phoneNumber}`}
          >
            Save
          </Button>
        </form>
        <form
          className="flex flex-wrap items-end gap-2"
          aria-label={`Bind ${number.phoneNumber} to an agent`}
          onSubmit={(e) => {
            e.preventDefault();
            bindAgent.mutate({ numberId: number.id, agentId: agentId === "" ? null : agentId });
          }}
        >
          <Select
            label={
              <>
                Agent<span className="sr-only"> of {number.phoneNumber}</span>
              </>
            }
            className="min-w-44"
            value={agentId}
            onChange={(e) => setAgentId(e.target.value)}
            error={bindAgent.failure?.fields.agentId}
          >
            <option value="">No agent</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.display}
              </option>
            ))}
          </Select>
          <Button
            variant="secondary"
            pending={bindAgent.isPending}
            disabled={!agentChanged}
            aria-label={`Save agent of ${number.phoneNumber}`}
          >
            Save
          </Button>
        </form>
        <ConfirmButton
          label="Release"
          ariaLabel={`Release ${number.phoneNumber}`}
          pending={release.isPending}
          title={`Release ${number.phoneNumber}?`}
          description="The number goes back to the carrier: its inbox binding is removed at once, so it stops sending and receiving SMS and calls. You may not get the same number again."
          confirmLabel="Release number"
          onConfirm={() => release.mutate({ numberId: number.id })}
        />
      </div>
      <FormError failure={update.failure && !update.failure.fields.inboxId ? update.failure : null} />
      <FormError failure={bindAgent.failure && !bindAgent.failure.fields.agentId ? bindAgent.failure : null} />
      <FormError failure={release.failure} />
      {number.capabilities.includes("voice") ? <InboundAssistant number={number} voices={voices} /> : null}
    </div>
  );
}

/**
 * The assistant that answers calls to the number (bound to an inbox or an agent): its instructions,
 * greeting, voice and language; an emptied field goes back to the default (`null`).
 */
function InboundAssistant({ number, voices }: { number: PhoneNumber; voices: VoiceChoice[] }) {
  const update = useAction(updateNumberAction);
  const [saved, setSaved] = useState(false);
  const text = (data: FormData, name: string) => {
    const v = data.get(name);
    return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
  };
  return (
    <details className="text-sm">
      <summary className="cursor-pointer">
        Inbound assistant<span className="sr-only"> of {number.phoneNumber}</span>
      </summary>
      <form
        className="mt-2 grid gap-3"
        aria-label={`Inbound assistant of ${number.phoneNumber}`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          setSaved(false);
          update.mutate(
            {
              numberId: number.id,
              inboundInstructions: text(data, "inboundInstructions"),
              inboundGreeting: text(data, "inboundGreeting"),
              inboundVoice: text(data, "inboundVoice"),
              inboundLanguage: text(data, "inboundLanguage"),
            },
            { onSuccess: () => setSaved(true) },
          );
        }}
      >
        <TextArea
          label="Instructions"
          name="inboundInstructions"
          rows={3}
          maxLength={8000}
          defaultValue={number.inboundInstructions ?? ""}
          hint="Empty: take a message and say someone will call back."
          error={update.failure?.fields.inboundInstructions}
        />
        <Field
          label="Greeting"
          name="inboundGreeting"
          maxLength={500}
          defaultValue={number.inboundGreeting ?? ""}
          error={update.failure?.fields.inboundGreeting}
        />
        <Select
          label="Voice"
          name="inboundVoice"
          defaultValue={number.inboundVoice ?? ""}
          error={update.failure?.fields.inboundVoice}
        >
          <option value="">Default (Marin)</option>
          {voices.map((v) => (
            <option key={v.voiceId} value={v.voiceId}>
              {v.name}
            </option>
          ))}
        </Select>
        <Field
          label="Language"
          name="inboundLanguage"
          placeholder="en"
          defaultValue={number.inboundLanguage ?? ""}
          error={update.failure?.fields.inboundLanguage}
        />
        <div>
          <Button variant="secondary" pending={update.isPending} aria-label={`Save assistant of ${number.phoneNumber}`}>
            Save assistant
          </Button>
        </div>
        <FormError
          failure={update.failure && Object.keys(update.failure.fields).length === 0 ? update.failure : null}
        />
        <LiveMessage tone="ok">{saved ? `The assistant of ${number.phoneNumber} is saved.` : null}</LiveMessage>
      </form>
    </details>
  );
}

/** Places an AI call from one of the active voice numbers (`POST /v1/phone/calls`); opens the call's page. */
export function PlaceCall({
  numbers,
  voices,
}: {
  numbers: { id: string; phoneNumber: string }[];
  voices: VoiceChoice[];
}) {
  const router = useRouter();
  const form = useActionForm(placeCallAction, {
    numbers: ["maxDurationSeconds"],
    onSuccess: (call) => router.push(`/phone/calls/${call.id}`),
  });
  if (numbers.length === 0)
    return (
      <EmptyState
        title="No number to call from"
        description="Provision a number with voice capability first; calls are placed from active numbers."
      />
    );
  const known = ["fromNumberId", "to", "instructions", "greeting", "voice", "language", "maxDurationSeconds"];
  return (
    <form {...form.formProps} aria-label="Place a call" className="grid gap-4 sm:grid-cols-2">
      <Select label="From" name="fromNumberId" error={form.fieldError("fromNumberId")}>
        {numbers.map((n) => (
          <option key={n.id} value={n.id}>
            {n.phoneNumber}
          </option>
        ))}
      </Select>
      <Field
        label="To"
        name="to"
        type="tel"
        autoComplete="off"
        placeholder="+13125550123"
        hint="E.164. On the simulated carrier +12025550191 is busy, +12025550192 does not answer."
        error={form.fieldError("to")}
      />
      <div className="sm:col-span-2">
        <TextArea
          label="Instructions"
          name="instructions"
          rows={3}
          maxLength={8000}
          error={form.fieldError("instructions")}
        />
      </div>
      <Field label="Greeting" name="greeting" maxLength={500} error={form.fieldError("greeting")} />
      <Select label="Voice" name="voice" defaultValue="marin" error={form.fieldError("voice")}>
        {voices.map((v) => (
          <option key={v.voiceId} value={v.voiceId}>
            {v.name}
          </option>
        ))}
      </Select>
      <Field label="Language" name="language" placeholder="en" error={form.fieldError("language")} />
      <Field
        label="Maximum duration (seconds)"
        name="maxDurationSeconds"
        type="number"
        inputMode="numeric"
        min={10}
        max={3600}
        placeholder="600"
        error={form.fieldError("maxDurationSeconds")}
      />
      <div className="sm:col-span-2">
        <Button pending={form.isPending}>Place call</Button>
      </div>
      <div className="sm:col-span-2">
        <FormError failure={form.failure && !known.some((f) => form.failure?.fields[f]) ? form.failure : null} />
      </div>
    </form>
  );
}
