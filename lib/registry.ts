import account from "@/lib/account/manifest";
import agents from "@/lib/agents/manifest";
import apiKeys from "@/lib/api-keys/manifest";
import audiences from "@/lib/audiences/manifest";
import audit from "@/lib/audit/manifest";
import contacts from "@/lib/contacts/manifest";
import buckets from "@/lib/buckets/manifest";
import compliance from "@/lib/compliance/manifest";
import budgets from "@/lib/budgets/manifest";
import type { Contract } from "@/lib/core/contract";
import type { DomainManifest } from "@/lib/core/domain";
import type { AnyOperation } from "@/lib/core/operation";
import type { InngestFunction } from "inngest";
import domains from "@/lib/domains/manifest";
import events from "@/lib/events/manifest";
import inboxes from "@/lib/inboxes/manifest";
import messages from "@/lib/messages/manifest";
import meta from "@/lib/meta/manifest";
import notifications from "@/lib/notifications/manifest";
import organizations from "@/lib/organizations/manifest";
import letters from "@/lib/letters/manifest";
import phone from "@/lib/phone/manifest";
import providers from "@/lib/providers/manifest";
import requestLogs from "@/lib/request-logs/manifest";
import telegram from "@/lib/channels/telegram/manifest";
import slack from "@/lib/slack/manifest";
import templates from "@/lib/templates/manifest";
import webhooks from "@/lib/webhooks/manifest";
import type { WorkflowEvent } from "@/lib/workflows/define";
import workflows from "@/lib/workflows/manifest";
import waits from "@/lib/waits/manifest";
import inboxSchemas from "@/lib/inbox-schemas/manifest";

/**
 * The registry: the only list of domains. Everything that enumerates operations derives from it:
 * the HTTP route table (`lib/http/routes.ts`), the OpenAPI document and its tags, the generated
 * security suite and fuzz tests, the console's actions, the MCP tools, the CLI commands, the
 * Inngest function list (`FUNCTIONS`, from each manifest's `functions`) and the workflow events
 * (`WORKFLOW_EVENTS`, from each manifest's `events`).
 */
export const DOMAINS: readonly DomainManifest[] = [
  account,
  apiKeys,
  audit,
  requestLogs,
  notifications,
  organizations,
  domains,
  inboxes,
  telegram,
  messages,
  templates,
  contacts,
  audiences,
  agents,
  budgets,
  compliance,
  events,
  webhooks,
  buckets,
  providers,
  slack,
  phone,
  waits,
  inboxSchemas,
  letters,
  meta,
  workflows,
];

/** Every operation of every domain, in domain order. */
export const OPERATIONS: readonly AnyOperation[] = DOMAINS.flatMap((d) => d.operations);

/** Operations by id (operation ids are unique; a duplicate fails at start). */
export const OPERATIONS_BY_ID: ReadonlyMap<string, AnyOperation> = (() => {
  const byId = new Map<string, AnyOperation>();
  for (const op of OPERATIONS) {
    if (byId.has(op.id)) throw new Error(`Duplicate operation id ${op.id}`);
    byId.set(op.id, op);
  }
  return byId;
})();

/** The operations served under /v1 (`surfaces.http`). */
export const HTTP_OPERATIONS: readonly AnyOperation[] = OPERATIONS.filter((op) => op.surfaces.http);

export const CONTRACTS: readonly Contract[] = OPERATIONS.map((op) => op.contract);

/** The contracts of the HTTP API (what the OpenAPI document and the HTTP security suite cover). */
export const HTTP_CONTRACTS: readonly Contract[] = HTTP_OPERATIONS.map((op) => op.contract);

/** OpenAPI tags, in first-use order. */
export const TAGS: readonly string[] = [...new Set(HTTP_OPERATIONS.map((op) => op.contract.tag))];

/** Every workflow event of every domain, by name (names are unique; a duplicate fails at start). */
export const WORKFLOW_EVENTS: ReadonlyMap<string, WorkflowEvent> = (() => {
  const byName = new Map<string, WorkflowEvent>();
  for (const e of DOMAINS.flatMap((d) => d.events ?? [])) {
    if (byName.has(e.name)) throw new Error(`Duplicate workflow event ${e.name}`);
    byName.set(e.name, e);
  }
  return byName;
})();

/**
 * The Inngest functions the app serves (`app/api/inngest/route.ts`). Every event a function is
 * triggered or cancelled by must be a declared workflow event, and triggers must carry its schema
 * (`event.trigger`), so the SDK validates payloads before a handler runs; otherwise this fails at start.
 */
export const FUNCTIONS: readonly InngestFunction.Any[] = (() => {
  const fns = DOMAINS.flatMap((d) => d.functions ?? []);
  const ids = new Set<string>();
  for (const fn of fns) {
    const id = fn.id();
    if (ids.has(id)) throw new Error(`Duplicate workflow function ${id}`);
    ids.add(id);
    const { triggers = [], cancelOn = [] } = fn.opts as {
      triggers?: readonly unknown[];
      cancelOn?: readonly { event: unknown }[];
    };
    for (const t of triggers) {
      if (t && typeof t === "object" && "cron" in t) continue;
      const declared = [...WORKFLOW_EVENTS.values()].some((e) => e.trigger === t);
      if (!declared)
        throw new Error(
          `Function ${id} has a trigger that is not a declared workflow event's \`trigger\` (lib/<domain>/workflow-events.ts).`,
        );
    }
    for (const c of cancelOn) {
      const name = typeof c.event === "string" ? c.event : (c.event as { name?: string } | null)?.name;
      if (!name || !WORKFLOW_EVENTS.has(name))
        throw new Error(`Function ${id} is cancelled by an undeclared workflow event ${String(name)}.`);
    }
  }
  return fns;
})();
