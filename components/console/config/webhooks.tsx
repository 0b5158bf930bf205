"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import {
  createWebhookAction,
  deleteWebhookAction,
  pauseWebhookAction,
  redriveWebhookAction,
  resumeWebhookAction,
  rotateSecretAction,
  testWebhookAction,
  updateWebhookAction,
  webhookStateAction,
} from "@/lib/console/actions/webhooks";
import type { ActionResult } from "@/lib/console/action";
import { webhookHealth } from "@/lib/console/webhook-health";
import { inputRules } from "@/components/console/contract-input";
import { createWebhook, WEBHOOK_RATE_LIMIT_MAX } from "@/lib/webhooks/contracts";
import { CopyButton } from "../copy-button";
import { ConfirmButton, Dialog } from "../dialog";
import { eventLinks } from "../observe/event-tail";
import { Button, Field, FormError, numberValue, useAction, useActionForm } from "../form";
import { Badge, Details, EmptyState, ErrorNotice, Mono, StatusBadge, Table, Td, Time } from "../ui";
import { DELIVERY_LOG_SIZE, WEBHOOK_POLL_MS } from "./limits";
import { arrayFieldErrors, GroupErrors, hasFormLevelError, LiveMessage, OnceSecret } from "./shared";

type Ok<R> = R extends { ok: true; data: infer T } ? T : never;
/** What the live view polls: the endpoint and its newest delivery attempts. */
export type WebhookState = Ok<Awaited<ReturnType<typeof webhookStateAction>>>;
type Webhook = WebhookState["webhook"];
type Delivery = WebhookState["deliveries"][number];

/** The delivery rate limit input's rules (the API's bounds) and words, shared by the create and edit forms. */
const rateInput = {
  type: "number",
  min: 1,
  max: WEBHOOK_RATE_LIMIT_MAX,
  step: 1,
  inputMode: "numeric",
  placeholder: "No limit",
  autoComplete: "off",
} as const;
const RATE_HINT =
  "Deliveries per second at most: a burst of that many, then evenly paced; more wait, none are dropped. Empty: no limit.";

/** An endpoint's delivery rate limit in words. */
export function rateLimitText(perSecond: number | null): string {
  return perSecond ? `${perSecond} ${perSecond === 1 ? "delivery" : "deliveries"} per second` : "None";
}

/**
 * The create-webhook form (URL, events or all of them, label, delivery rate limit); shows the signing secret once. "All
 * events" subscribes to every type of the API (`eventTypes`, so types that arrive later are
 * included); the individual choices are the types the product emits, grouped by resource.
 */
export function CreateWebhookForm({
  eventTypes,
  groups,
}: {
  eventTypes: readonly string[];
  groups: { name: string; types: readonly string[] }[];
}) {
  const uid = useId();
  const [all, setAll] = useState(true);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [secret, setSecret] = useState<string | null>(null);
  const create = useActionForm(createWebhookAction, {
    reset: true,
    numbers: ["rateLimitPerSecond"],
    onSuccess: (result) => {
      setSecret(result.secret);
      setAll(true);
      setSelected(new Set());
    },
    // The event checkboxes are controlled and unnamed: the events sent come from their state.
    extra: () => ({ events: all ? [...eventTypes] : [...selected] }),
  });
  const sent = all ? eventTypes : [...selected];
  const eventErrors = arrayFieldErrors(create.failure?.fields, "events", (i) => sent[i] ?? `Event ${i + 1}`);
  const toggle = (type: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(type);
    else next.delete(type);
    setSelected(next);
    if (next.size > 0) setAll(false);
  };
  return (
    <div className="space-y-6">
      {secret ? (
        <OnceSecret
          title="Signing secret of the new webhook"
          secret={secret}
          testId="new-webhook-secret"
          onDismiss={() => setSecret(null)}
        />
      ) : null}
      <form
        {...create.formProps}
        aria-label="Create a webhook"
        className="space-y-5"
        onSubmit={(e) => {
          setSecret(null);
          create.formProps.onSubmit(e);
        }}
      >
        <div className="grid gap-4 sm:grid-cols-[2fr_1fr_1fr]">
          <Field
            label="Endpoint URL"
            name="url"
            {...inputRules(createWebhook.body, "url")}
            type="url"
            inputMode="url"
            autoComplete="off"
            placeholder="https://example.com/hooks/svc"
            hint="HTTPS on a public address."
            error={create.fieldError("url")}
          />
          <Field
            label="Label"
            name="label"
            {...inputRules(createWebhook.body, "label")}
            autoComplete="off"
            placeholder="production"
            hint="Optional."
            error={create.fieldError("label")}
          />
          <Field
            label="Delivery rate limit (per second)"
            name="rateLimitPerSecond"
            {...rateInput}
            hint={RATE_HINT}
            error={create.fieldError("rateLimitPerSecond")}
          />
        </div>

        <fieldset className="space-y-2" aria-describedby={eventErrors.length > 0 ? `${uid}-events-error` : undefined}>
          <legend className="text-sm font-medium">Events</legend>
          <label className="flex items-center gap-2 text-sm font-medium">
            <input
              type="checkbox"
              checked={all}
              onChange={(e) => {
                setAll(e.target.checked);
                if (e.target.checked) setSelected(new Set());
              }}
              className="size-4"
            />
            All events
          </label>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">Or only these event types:</p>
          <div className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-3">
            {groups.map((g) => (
              <div key={g.name} role="group" aria-label={`${g.name} events`} className="space-y-1.5">
                <p className="text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">{g.name}</p>
                {g.types.map((type) => (
                  <label key={type} className="flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      value={type}
                      checked={selected.has(type)}
                      onChange={(e) => toggle(type, e.target.checked)}
                      className="size-4"
                    />
                    <span className="font-mono">{type}</span>
                  </label>
                ))}
              </div>
            ))}
          </div>
          <GroupErrors id={`${uid}-events-error`} messages={eventErrors} />
        </fieldset>

        <FormError
          failure={
            create.failure && hasFormLevelError(create.failure.fields, ["url", "label", "events", "rateLimitPerSecond"])
              ? create.failure
              : null
          }
          beside={create.failure}
        />
        <Button pending={create.isPending}>Create webhook</Button>
      </form>
    </div>
  );
}

/** What to type to delete an endpoint: its label, else its URL's host. */
function confirmName(w: Pick<Webhook, "label" | "url">): string {
  if (w.label) return w.label;
  try {
    return new URL(w.url).host;
  } catch {
    return w.url;
  }
}

/** Unwraps an action result for TanStack Query (an error result becomes a thrown error). */
function unwrap<T>(result: ActionResult<T>): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.data;
}

/** The outcome of a test ping, in words, with its tone. */
function testOutcome(d: Delivery): [string, "ok" | "warn"] {
  if (d.status === "succeeded")
    return [
      `Test delivered: HTTP ${d.responseStatus ?? "?"}${d.durationMs !== null ? ` in ${d.durationMs} ms` : ""}.`,
      "ok",
    ];
  return [
    `Test failed: ${d.error ?? (d.responseStatus !== null ? `HTTP ${d.responseStatus}` : "no response")}.`,
    "warn",
  ];
}

/**
 * One endpoint, live: details with the breaker state and failure count, the actions (test, pause or
 * resume, rotate, redrive, delete), and the delivery log, re-read every two seconds.
 */
export function WebhookLive({
  initial,
  canWrite,
  breakerThreshold,
  eventTypeCount,
  rotationHours,
}: {
  initial: WebhookState;
  canWrite: boolean;
  breakerThreshold: number;
  eventTypeCount: number;
  rotationHours: number;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const id = initial.webhook.id;
  const queryKey = ["webhook", id] as const;
  const [deleting, setDeleting] = useState(false);
  const state = useQuery({
    queryKey,
    queryFn: async () => unwrap(await webhookStateAction({ webhookId: id })),
    initialData: initial,
    refetchInterval: WEBHOOK_POLL_MS,
    enabled: !deleting,
  });
  const [message, setMessage] = useState<{ tone: "ok" | "warn"; text: string } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey });
  /** After an action: say what happened and re-read the state at once. */
  const said = (text: string, tone: "ok" | "warn" = "ok") => {
    setMessage({ tone, text });
    refresh();
  };
  const test = useAction(testWebhookAction, {
    refresh: false,
    onSuccess: ({ delivery }) => said(...testOutcome(delivery)),
  });
  const pause = useAction(pauseWebhookAction, {
    refresh: false,
    onSuccess: () => said("Paused: no deliveries until you resume."),
  });
  const resume = useAction(resumeWebhookAction, {
    refresh: false,
    onSuccess: () => said("Resumed; the circuit breaker is closed."),
  });
  const rotate = useAction(rotateSecretAction, {
    refresh: false,
    onSuccess: (result) => {
      setSecret(result.secret);
      said("Secret rotated.");
    },
  });
  const redrive = useAction(redriveWebhookAction, {
    refresh: false,
    onSuccess: ({ redriven }) =>
      said(
        redriven === 0
          ? "Nothing to redrive: no failed deliveries."
          : `Redriving ${redriven} event${redriven === 1 ? "" : "s"}.`,
      ),
  });
  const remove = useAction(deleteWebhookAction, { refresh: false, onSuccess: () => router.push("/webhooks") });
  const w = state.data.webhook;
  const deliveries = state.data.deliveries;
  const health = webhookHealth(w, breakerThreshold, deliveries);
  const failure =
    test.failure ?? pause.failure ?? resume.failure ?? rotate.failure ?? redrive.failure ?? remove.failure;
  /** Runs one action with a clean slate: the previous outcome and errors are cleared. */
  const act = (run: () => void) => () => {
    setMessage(null);
    for (const m of [test, pause, resume, rotate, redrive, remove]) m.reset();
    run();
  };
  return (
    <div className="space-y-6">
      <Details
        items={[
          [
            "URL",
            <span key="u" className="flex flex-wrap items-start gap-2">
              <Mono>{w.url}</Mono>
              <CopyButton value={w.url} label="Copy URL" />
            </span>,
          ],
          ["Status", <StatusBadge key="s" status={w.status} />],
          [
            "Circuit breaker",
            <span key="b" className="block space-y-1" data-testid="webhook-health">
              <span className="flex flex-wrap items-center gap-2">
                <Badge tone={health.state === "open" ? "red" : health.state === "failing" ? "yellow" : "green"}>
                  {health.state === "open" ? "open" : health.state === "failing" ? "failing" : "closed"}
                </Badge>
                <span className="text-zinc-700 dark:text-zinc-300">{health.text}</span>
              </span>
              {health.lastError ? (
                <span className="block text-zinc-700 dark:text-zinc-300">
                  Last error (<Time value={health.lastError.at} />
                  ): <span className="break-words">{health.lastError.text}</span>
                </span>
              ) : null}
            </span>,
          ],
          ["Consecutive failures", `${w.consecutiveFailures} (the breaker opens at ${breakerThreshold})`],
          ["Paused reason", w.pausedReason ? <Mono key="r">{w.pausedReason}</Mono> : "—"],
          ["Paused by breaker at", w.autoPausedAt ? <Time key="a" value={w.autoPausedAt} /> : "—"],
          ["Events", <EventList key="e" events={w.events} total={eventTypeCount} />],
          ["Delivery rate limit", rateLimitText(w.rateLimitPerSecond)],
          ["Label", w.label ?? "—"],
          ["Created", <Time key="c" value={w.createdAt} />],
          ["Last delivery", w.lastDeliveryAt ? <Time key="l" value={w.lastDeliveryAt} /> : "None yet"],
          [
            "Previous secret",
            w.secondarySecretActive && w.secondarySecretExpiresAt ? (
              <span key="p">
                still signing until <Time value={w.secondarySecretExpiresAt} />
              </span>
            ) : w.secondarySecretExpiresAt ? (
              <span key="p">
                retired <Time value={w.secondarySecretExpiresAt} />
              </span>
            ) : (
              "None: the secret has never been rotated"
            ),
          ],
        ]}
      />

      {secret ? (
        <OnceSecret
          title="New signing secret"
          secret={secret}
          testId="new-webhook-secret"
          onDismiss={() => setSecret(null)}
        />
      ) : null}

      {canWrite ? (
        <section aria-labelledby="webhook-actions" className="space-y-3">
          <h2 id="webhook-actions" className="text-base font-semibold">
            Actions
          </h2>
          <div className="flex flex-wrap gap-2">
            <Button type="button" pending={test.isPending} onClick={act(() => test.mutate({ webhookId: id }))}>
              Send test
            </Button>
            {w.status === "active" ? (
              <Button
                type="button"
                variant="secondary"
                pending={pause.isPending}
                onClick={act(() => pause.mutate({ webhookId: id }))}
              >
                Pause
              </Button>
            ) : (
              <Button
                type="button"
                variant="secondary"
                pending={resume.isPending}
                onClick={act(() => resume.mutate({ webhookId: id }))}
              >
                Resume
              </Button>
            )}
            <ConfirmButton
              variant="secondary"
              label="Rotate secret"
              pending={rotate.isPending}
              title="Rotate the signing secret?"
              description={`A new secret signs every delivery from now on. The current one keeps signing too for ${rotationHours} hours, so receivers can switch without missing a delivery.`}
              confirmLabel="Rotate secret"
              onConfirm={act(() => rotate.mutate({ webhookId: id }))}
            />
            <Button
              type="button"
              variant="secondary"
              pending={redrive.isPending}
              disabled={w.status !== "active"}
              aria-describedby={w.status !== "active" ? "redrive-hint" : undefined}
              onClick={act(() => redrive.mutate({ webhookId: id }))}
            >
              Redrive
            </Button>
            <ConfirmButton
              label="Delete webhook"
              pending={remove.isPending}
              title="Delete this webhook?"
              description="Deliveries to this endpoint stop at once, and its delivery log is deleted with it. This cannot be undone."
              typeToConfirm={confirmName(w)}
              confirmLabel="Delete webhook"
              onConfirm={act(() => {
                setDeleting(true);
                remove.mutate({ webhookId: id }, { onError: () => setDeleting(false) });
              })}
            />
          </div>
          {w.status !== "active" ? (
            <p id="redrive-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
              Resume the webhook to redrive its failed deliveries.
            </p>
          ) : null}
          <LiveMessage tone={message?.tone}>{message?.text}</LiveMessage>
          <FormError failure={failure} />
          <RateLimitForm
            webhookId={id}
            value={w.rateLimitPerSecond}
            onSaved={(v) =>
              said(v ? `Rate limit set: ${rateLimitText(v)}.` : "Rate limit removed: deliveries are not paced.")
            }
          />
        </section>
      ) : null}

      <section aria-labelledby="delivery-log-heading" className="space-y-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="delivery-log-heading" className="text-base font-semibold">
            Delivery log
          </h2>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            Newest first, up to {DELIVERY_LOG_SIZE} attempts{state.data.hasMore ? " (older ones not shown)" : ""};
            refreshes every {WEBHOOK_POLL_MS / 1000} s.
          </p>
        </div>
        {state.isError ? <ErrorNotice>Could not refresh the log: {state.error.message}</ErrorNotice> : null}
        <div data-testid="delivery-log">
          {deliveries.length === 0 ? (
            <EmptyState
              title="No deliveries yet"
              description="Attempts appear here as events are sent to this endpoint. Send a test to try it."
            />
          ) : (
            <Table head={["Event", "Status", "HTTP status", "Attempt", "Time", "Response"]} caption="Delivery log">
              {deliveries.map((d) => (
                <DeliveryRow key={d.id} delivery={d} />
              ))}
            </Table>
          )}
        </div>
      </section>
    </div>
  );
}

/** Changes the endpoint's delivery rate limit (empty removes it). */
function RateLimitForm({
  webhookId,
  value,
  onSaved,
}: {
  webhookId: string;
  value: number | null;
  onSaved: (value: number | null) => void;
}) {
  const save = useAction(updateWebhookAction, {
    refresh: false,
    onSuccess: ({ webhook }) => onSaved(webhook.rateLimitPerSecond),
  });
  return (
    <form
      aria-label="Delivery rate limit"
      noValidate
      className="flex flex-wrap items-start gap-2 pt-2"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          webhookId,
          rateLimitPerSecond: numberValue(new FormData(e.currentTarget).get("rateLimitPerSecond")),
        });
      }}
    >
      <div className="w-72">
        <Field
          key={value ?? "none"}
          label="Delivery rate limit (per second)"
          name="rateLimitPerSecond"
          {...rateInput}
          defaultValue={value ?? ""}
          hint={RATE_HINT}
          error={save.fieldError("rateLimitPerSecond")}
        />
      </div>
      <Button variant="secondary" className="mt-6" pending={save.isPending}>
        Save rate limit
      </Button>
      <FormError
        failure={save.failure && hasFormLevelError(save.failure.fields, ["rateLimitPerSecond"]) ? save.failure : null}
        beside={save.failure}
      />
    </form>
  );
}

/** One attempt of the delivery log; "Request and response" opens the attempt's details. */
function DeliveryRow({ delivery: d }: { delivery: Delivery }) {
  const [open, setOpen] = useState(false);
  return (
    <tr>
      <Td>
        <span className="font-mono text-xs">{d.eventType}</span>
        {d.replay ? (
          <span className="ml-1">
            <Badge tone="blue">replay</Badge>
          </span>
        ) : null}
        <span className="block font-mono text-xs text-zinc-600 dark:text-zinc-400">{d.eventId}</span>
      </Td>
      <Td>
        <StatusBadge status={d.status} />
      </Td>
      <Td className="tabular-nums">
        {d.responseStatus ?? "—"}
        {d.durationMs !== null ? (
          <span className="block text-xs text-zinc-600 dark:text-zinc-400">{d.durationMs} ms</span>
        ) : null}
      </Td>
      <Td className="tabular-nums">{d.attempt}</Td>
      <Td>
        <Time value={d.createdAt} />
      </Td>
      {/* A failed attempt's reason, else what the receiver answered (a success is never called an error). */}
      <Td className="max-w-xs text-xs break-words">
        {d.error ? (
          <span className="text-red-700 dark:text-red-300">Error: {d.error}</span>
        ) : d.responseSnippet ? (
          <span className="font-mono text-zinc-700 dark:text-zinc-300">{excerpt(d.responseSnippet, 120)}</span>
        ) : (
          "—"
        )}
        {d.status !== "pending" ? (
          <span className="block">
            <button type="button" className="link text-xs" aria-haspopup="dialog" onClick={() => setOpen(true)}>
              Request and response
            </button>
          </span>
        ) : null}
        <Dialog
          open={open}
          onClose={() => setOpen(false)}
          wide
          title={`Attempt ${d.attempt}: ${d.eventType}`}
          testId="attempt-details"
        >
          <AttemptDetails delivery={d} />
        </Dialog>
      </Td>
    </tr>
  );
}

function excerpt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The console pages an event envelope's data points at (its message, thread, inbox, domain). */
function linksOfBody(body: string) {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === "object" && "data" in parsed && parsed.data && typeof parsed.data === "object")
      data = parsed.data as Record<string, unknown>;
  } catch {
    return [];
  }
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return eventLinks({
    messageId: str(data.messageId),
    outboundMessageId: null,
    threadId: str(data.threadId),
    inboxId: str(data.inboxId),
    partitionKey: "",
    data,
  });
}

/** A body as the receiver saw it: pretty-printed when it is JSON. */
function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function HeaderList({ headers, label }: { headers: Record<string, string>; label: string }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p className="text-xs text-zinc-600 dark:text-zinc-400">No headers.</p>;
  return (
    <dl
      aria-label={label}
      className="grid grid-cols-1 gap-x-4 gap-y-1 font-mono text-xs sm:grid-cols-[max-content_1fr]"
    >
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-semibold text-zinc-700 dark:text-zinc-300">{k}</dt>
          <dd className="min-w-0 break-all">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

const PRE =
  "max-h-72 overflow-auto rounded bg-zinc-100 p-2 font-mono text-xs whitespace-pre-wrap break-all text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100";

/** One attempt in full: the outcome in words, the request as sent (signature included), the response. */
function AttemptDetails({ delivery: d }: { delivery: Delivery }) {
  const outcome =
    d.status === "succeeded"
      ? `Delivered: the endpoint answered HTTP ${d.responseStatus ?? "?"}${d.durationMs !== null ? ` in ${d.durationMs} ms` : ""}.`
      : d.status === "pending"
        ? "Under way."
        : `Failed: ${d.error ?? "no response"}.`;
  const links = d.request ? linksOfBody(d.request.body) : [];
  return (
    <div className="space-y-5 text-sm">
      <p className="flex flex-wrap items-center gap-2">
        <StatusBadge status={d.status} />
        <span>{outcome}</span>
        <span className="text-zinc-600 dark:text-zinc-400">
          <Time value={d.createdAt} />
        </span>
      </p>
      {links.length > 0 ? (
        <p className="flex flex-wrap gap-x-4 gap-y-1">
          <span className="text-zinc-600 dark:text-zinc-400">The event concerns:</span>
          {links.map((l) => (
            <Link key={l.kind} className="link" href={l.href}>
              the {l.kind}
            </Link>
          ))}
        </p>
      ) : null}
      <section aria-label="Request" className="space-y-2">
        <h3 className="font-semibold">Request</h3>
        {d.request ? (
          <>
            <p className="font-mono text-xs break-all">
              {d.request.method} {d.request.url}
            </p>
            <HeaderList headers={d.request.headers} label="Request headers" />
            <pre tabIndex={0} className={PRE} data-testid="attempt-request-body">
              {prettyBody(d.request.body)}
            </pre>
            {d.request.bodyTruncated ? (
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                The body is cut here in the log; the endpoint received all of it.
              </p>
            ) : null}
          </>
        ) : (
          <p className="text-zinc-700 dark:text-zinc-300">No request was made{d.error ? ` (${d.error})` : ""}.</p>
        )}
      </section>
      <section aria-label="Response" className="space-y-2">
        <h3 className="font-semibold">Response</h3>
        {d.responseStatus !== null ? (
          <>
            <p className="tabular-nums">
              HTTP {d.responseStatus}
              {d.durationMs !== null ? ` in ${d.durationMs} ms` : ""}
            </p>
            {d.responseHeaders ? <HeaderList headers={d.responseHeaders} label="Response headers" /> : null}
            {d.responseSnippet ? (
              <pre tabIndex={0} className={PRE} data-testid="attempt-response-body">
                {d.responseSnippet}
              </pre>
            ) : (
              <p className="text-xs text-zinc-600 dark:text-zinc-400">Empty body.</p>
            )}
          </>
        ) : (
          <p className="text-zinc-700 dark:text-zinc-300">No response{d.error ? `: ${d.error}` : ""}.</p>
        )}
      </section>
    </div>
  );
}

/** A webhook's subscribed event types as compact badges ("All event types" when it has every one of `total`). */
export function EventList({ events, total }: { events: readonly string[]; total?: number }) {
  if (total !== undefined && events.length >= total) return <Badge tone="blue">All event types</Badge>;
  return (
    <ul className="flex flex-wrap gap-1">
      {events.map((e) => (
        <li key={e}>
          <Badge>{e}</Badge>
        </li>
      ))}
    </ul>
  );
}
