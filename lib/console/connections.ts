import { getDb } from "@/db";
import { CHANNEL_DEFINITIONS, PLANNED_CONNECTIONS } from "@/lib/channels/definitions";
import type { ConnectMethod } from "@/lib/channels/definition";
import { channelAdapter } from "@/lib/channels";
import { ApiError } from "@/lib/core/errors";
import { connectionsOf } from "@/lib/inboxes/connections";
import { findInbox } from "@/lib/inboxes/service";
import { OPERATIONS_BY_ID } from "@/lib/registry";
import type { ConsoleContext } from "./context";

/** How the console offers to connect (the definition's `connect`, without its functions: it goes to the browser). */
export type ConnectOffer =
  | { kind: "address"; note: string }
  | { kind: "planned"; note: string }
  | {
      kind: "credential";
      fieldLabel: string;
      hint: string;
      submit: string;
      disconnectNote: string;
      /** Whether the user's role may connect and disconnect. */
      allowed: boolean;
    }
  | {
      kind: "install";
      hint: string;
      noApps: string;
      disconnectNote: string;
      /** The organization's apps to mint a link for (empty when none, or when the role cannot read them). */
      apps: { id: string; label: string }[];
      allowed: boolean;
    };

/** One channel's row on an inbox's page: its connections (names in words) and how to add one. */
export interface ConnectionGroup {
  channel: string;
  label: string;
  none: string;
  items: { id: string; name: string; detail: string | null; since: string }[];
  connect: ConnectOffer;
}

const operation = (id: string) => {
  const op = OPERATIONS_BY_ID.get(id);
  if (!op) throw new Error(`channel definition names an unknown operation ${id}`);
  return op;
};

async function offer(ctx: ConsoleContext, c: ConnectMethod): Promise<ConnectOffer> {
  switch (c.kind) {
    case "address":
    case "planned":
      return { kind: c.kind, note: c.note };
    case "credential":
      return {
        kind: "credential",
        fieldLabel: c.fieldLabel,
        hint: c.hint,
        submit: c.submit,
        disconnectNote: c.disconnectNote,
        allowed: ctx.can(operation(c.operationId).contract.access as never),
      };
    case "install": {
      const list = operation(c.appsOperationId);
      const apps = ctx.can(list.contract.access as never) ? c.apps(await ctx.invoke(list, {})) : [];
      return {
        kind: "install",
        hint: c.hint,
        noApps: c.noApps,
        disconnectNote: c.disconnectNote,
        apps,
        allowed: ctx.can(operation(c.operationId).contract.access as never),
      };
    }
  }
}

/**
 * An inbox's connections, one group per channel that has connections of its own (from the channel
 * definitions: a new channel's row comes with its definition) and the planned ones still to come.
 * A console read (the API's inbox object does not list connections): the inbox is the
 * organization's (`findInbox`, 404 otherwise) and the role reads inboxes.
 */
export async function inboxConnectionGroups(ctx: ConsoleContext, inboxId: string): Promise<ConnectionGroup[]> {
  if (!ctx.can("inboxes:read")) throw new ApiError("not_permitted", `Your role (${ctx.role}) cannot read inboxes.`);
  const db = await getDb();
  const inbox = await findInbox(db, ctx.principal, inboxId);
  const active = (await connectionsOf(db, inbox.id)).filter((c) => c.status === "active");
  const groups: ConnectionGroup[] = [];
  for (const d of CHANNEL_DEFINITIONS) {
    if (!d.connection) continue;
    const rows = active.filter((c) => c.channel === d.id);
    const describe = channelAdapter(d.id).describeConnections;
    const words: Map<string, { name: string; detail: string | null }> =
      describe && rows.length ? await describe(db, ctx.org.id, rows) : new Map<string, never>();
    groups.push({
      channel: d.id,
      label: d.connection.label,
      none: d.connection.none,
      items: rows.map((r) => ({
        id: r.id,
        name: words.get(r.id)?.name ?? r.address,
        detail: words.get(r.id)?.detail ?? null,
        since: r.createdAt.toISOString(),
      })),
      connect: await offer(ctx, d.connection.connect),
    });
  }
  for (const p of PLANNED_CONNECTIONS)
    groups.push({ channel: p.id, label: p.label, none: p.none, items: [], connect: { kind: "planned", note: p.note } });
  return groups;
}
