"use server";

import { actionError, type ActionResult, runAction } from "@/lib/console/action";
import { getConsole } from "@/lib/console/context";
import { broadcastContent } from "@/lib/console/reads";
import { sendMessage } from "@/lib/messages/operations";
import { renderTemplate } from "@/lib/templates/operations";
import {
  addAudienceMembers,
  createAudience,
  deleteAudience,
  getBroadcast,
  removeAudienceMember,
  sendBroadcast,
} from "@/lib/audiences/operations";

/** Creates an audience (`POST /v1/audiences`). */
export async function createAudienceAction(input: unknown) {
  return runAction(createAudience, input, { then: (data) => ({ id: data.list.id }) });
}

export async function deleteAudienceAction(input: unknown) {
  return runAction(deleteAudience, input);
}

/** Adds 1..2,000 members (the form's one address, or one batch of a CSV import). */
export async function addMembersAction(input: unknown) {
  return runAction(addAudienceMembers, input, { labels: { email: "email address" } });
}

export async function removeMemberAction(input: unknown) {
  return runAction(removeAudienceMember, input);
}

/** Queues a broadcast (202 `bcast_…`); the page then follows its progress. */
export async function sendBroadcastAction(input: unknown) {
  return runAction(sendBroadcast, input, { labels: { inboxId: "inbox", "template.id": "template" } });
}

/** The broadcast's status and counts, polled by its page's progress bar. */
export async function readBroadcastAction(input: unknown) {
  return runAction(getBroadcast, input, { then: (data) => data.broadcast });
}

/**
 * Sends one copy of a broadcast to one address (`to`): the broadcast's inbox, subject and bodies
 * through the `sendMessage` operation (POST /v1/messages: the same checks, budgets and audit as any
 * send); the audience is not touched.
 */
export async function sendBroadcastTestAction(
  input: unknown,
): Promise<ActionResult<{ id: string | null; status: string; subject: string; to: string[] }>> {
  const values = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  let content: Awaited<ReturnType<typeof broadcastContent>>;
  try {
    content = await broadcastContent(
      await getConsole(),
      typeof values.broadcastId === "string" ? values.broadcastId : "",
    );
  } catch (err) {
    return actionError(err);
  }
  const to = typeof values.to === "string" ? values.to.trim() : "";
  return runAction(
    sendMessage,
    {
      __org: values.__org,
      inboxId: content.inboxId,
      to: to === "" ? [] : [to],
      subject: content.subject,
      ...(content.text ? { text: content.text } : {}),
      ...(content.html ? { html: content.html } : {}),
    },
    {
      labels: { to: "address", "to[0]": "address" },
      then: (r) => ({
        id: "id" in r ? r.id : null,
        status: r.status,
        subject: "subject" in r ? r.subject : content.subject,
        to: "to" in r ? r.to : [to],
      }),
    },
  );
}

/** The send form's body before it is a broadcast: a text body, or a template with its variables. */
interface DraftBody {
  subject?: string;
  text?: string;
  template?: { id: string; variables?: Record<string, unknown> };
}

function draftOf(values: Record<string, unknown>): DraftBody {
  const t = values.template;
  const template =
    t && typeof t === "object" && !Array.isArray(t) && typeof (t as { id?: unknown }).id === "string"
      ? (t as DraftBody["template"])
      : undefined;
  return {
    ...(typeof values.subject === "string" && values.subject.trim() ? { subject: values.subject.trim() } : {}),
    ...(template ? { template } : { text: typeof values.text === "string" ? values.text : "" }),
  };
}

/**
 * The send form's "Preview": what members will receive, before anything is queued. A text body is
 * itself; a template is rendered by `renderTemplate` (POST /v1/templates/{id}/render: its checks and
 * sandbox, nothing sent) with the form's variables and subject. The page shows it with the
 * `MessageBody` the broadcast's page uses (HTML in a sandboxed iframe).
 */
export async function previewBroadcastDraftAction(
  input: unknown,
): Promise<ActionResult<{ subject: string | null; html: string | null; text: string | null }>> {
  const values = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const draft = draftOf(values);
  if (!draft.template)
    return { ok: true, data: { subject: draft.subject ?? null, html: null, text: draft.text ?? "" } };
  return runAction(
    renderTemplate,
    {
      __org: values.__org,
      idOrSlug: draft.template.id,
      ...(draft.template.variables ? { variables: draft.template.variables } : {}),
      ...(draft.subject ? { subject: draft.subject } : {}),
    },
    {
      labels: { idOrSlug: "template" },
      then: (r) => ({ subject: r.subject, html: r.html, text: r.text }),
    },
  );
}

/**
 * The send form's "Send a test": one copy of the draft to one address (`to`) through `sendMessage`
 * (POST /v1/messages: the same checks, budgets and audit as any send); the audience is not touched.
 */
export async function sendBroadcastDraftTestAction(
  input: unknown,
): Promise<ActionResult<{ id: string | null; status: string; to: string[] }>> {
  const values = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const to = typeof values.to === "string" ? values.to.trim() : "";
  return runAction(
    sendMessage,
    {
      __org: values.__org,
      inboxId: typeof values.inboxId === "string" ? values.inboxId : "",
      to: to === "" ? [] : [to],
      ...draftOf(values),
    },
    {
      labels: { to: "address", "to[0]": "address", inboxId: "inbox", "template.id": "template" },
      then: (r) => ({ id: "id" in r ? r.id : null, status: r.status, to: "to" in r ? r.to : [to] }),
    },
  );
}
