"use server";

import { type ActionResult, runAction } from "@/lib/console/action";
import { CHANNEL_DEFINITIONS } from "@/lib/channels/definitions";
import type { ConnectMethod } from "@/lib/channels/definition";
import { OPERATIONS_BY_ID } from "@/lib/registry";

/**
 * An inbox's connections from the console: the channel's definition names the operations that
 * connect and disconnect (the API's own), so these actions never name a channel.
 */

type Input = Record<string, unknown>;
const asInput = (input: unknown): Input => (input && typeof input === "object" ? (input as Input) : {});

function methodOf<K extends ConnectMethod["kind"]>(
  channel: unknown,
  kind: K,
): Extract<ConnectMethod, { kind: K }> | null {
  const c = CHANNEL_DEFINITIONS.find((d) => d.id === channel)?.connection?.connect;
  return c && c.kind === kind ? (c as Extract<ConnectMethod, { kind: K }>) : null;
}

/** The form's own name for the field the operation calls otherwise (`botToken` → `credential`). */
function renameField<T>(result: ActionResult<T>, from: string, to: string): ActionResult<T> {
  if (result.ok) return result;
  const { [from]: message, ...fields } = result.error.fields;
  return {
    ok: false,
    error: {
      ...result.error,
      param: result.error.param === from ? to : result.error.param,
      fields: message === undefined ? fields : { ...fields, [to]: message },
    },
  };
}

const unknownChannel = (): ActionResult<never> => ({
  ok: false,
  error: { code: "invalid_request", message: "This channel cannot be connected here.", param: "channel", fields: {} },
});

/** Connects with a credential (a bot token): the channel's connect operation, with this page's origin for its webhook. */
export async function connectWithCredentialAction(input: unknown): Promise<ActionResult<null>> {
  const { channel, credential, inboxId, __org } = asInput(input);
  const m = methodOf(channel, "credential");
  const op = m && OPERATIONS_BY_ID.get(m.operationId);
  if (!m || !op) return unknownChannel();
  const result = await runAction(op, { __org, inboxId, [m.field]: credential }, { withOrigin: true, then: () => null });
  return renameField(result, m.field, "credential");
}

/** Disconnects the channel's credential connection (the bot) from the inbox. */
export async function disconnectCredentialAction(input: unknown): Promise<ActionResult<null>> {
  const { channel, inboxId, __org } = asInput(input);
  const m = methodOf(channel, "credential");
  const op = m && OPERATIONS_BY_ID.get(m.disconnectOperationId);
  if (!m || !op) return unknownChannel();
  return runAction(op, { __org, inboxId }, { then: () => null });
}

/** Mints a provider install link for one of the organization's apps, bound to the inbox. */
export async function installUrlAction(input: unknown): Promise<ActionResult<{ url: string; expiresAt: string }>> {
  const { channel, app, inboxId, __org } = asInput(input);
  const m = methodOf(channel, "install");
  const op = m && OPERATIONS_BY_ID.get(m.operationId);
  if (!m || !op) return unknownChannel();
  const result = await runAction(
    op,
    { __org, inboxId, [m.appParam]: app },
    { labels: { [m.appParam]: "app" }, then: (data) => data as { url: string; expiresAt: string } },
  );
  return renameField(result, m.appParam, "app");
}
