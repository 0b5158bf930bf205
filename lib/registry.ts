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
import domains from "@/lib/domains/manifest";
import events from "@/lib/events/manifest";
import inboxes from "@/lib/inboxes/manifest";
import messages from "@/lib/messages/manifest";
import meta from "@/lib/meta/manifest";
import notifications from "@/lib/notifications/manifest";
import organizations from "@/lib/organizations/manifest";
import providers from "@/lib/providers/manifest";
import templates from "@/lib/templates/manifest";
import webhooks from "@/lib/webhooks/manifest";

/**
 * The registry: the only list of domains. Everything that enumerates operations derives from it:
 * the HTTP route table (`lib/http/routes.ts`), the OpenAPI document and its tags, the generated
 * security suite and fuzz tests, the console's actions, and later the MCP tools, the CLI commands
 * and the Inngest function list (`FUNCTIONS`, from each manifest's `functions`).
 */
export const DOMAINS: readonly DomainManifest[] = [account, apiKeys, audit, notifications, organizations, domains, inboxes, messages, templates, contacts, audiences, agents, budgets, compliance, events, webhooks, buckets, providers, meta];

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

/** Inngest functions and workflow events declared by the domains (none yet: inngest/ still lists its own). */
export const FUNCTIONS: readonly unknown[] = DOMAINS.flatMap((d) => d.functions ?? []);
export const WORKFLOW_EVENTS: readonly unknown[] = DOMAINS.flatMap((d) => d.events ?? []);
