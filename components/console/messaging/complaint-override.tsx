"use client";

import { useState } from "react";
import type { ErrorOverride } from "@/lib/core/errors";

/**
 * A send refused because recipients complained (the error's `override`, see `ApiError.withOverride`)
 * and the control that overrides it: one piece shared by the compose and reply forms.
 */

/** Why a send was refused for recipients who complained, in words. */
export function complaintSentence(recipients: string[]): string {
  const who = recipients.join(", ");
  return recipients.length === 1
    ? `${who} reported an earlier message from this organization as spam, so this send was stopped.`
    : `${who} reported earlier messages from this organization as spam, so this send was stopped.`;
}

/**
 * The recipients of a complaint refusal (`complained`, null otherwise) and those the form should
 * offer to send anyway to (`offered`): kept while the retry is pending, so the ticked box stays put.
 */
export function useComplaintOverride(failure: { override?: ErrorOverride } | null, pending: boolean) {
  const [last, setLast] = useState<string[] | null>(null);
  const complained = failure?.override?.field === "ignoreComplaints" ? failure.override.recipients : null;
  if (complained && complained !== last) setLast(complained);
  if (!complained && !pending && last) setLast(null);
  return { complained, offered: complained ?? (pending ? last : null) };
}

/**
 * What a complaint means and the `ignoreComplaints` checkbox. The compose form shows the refusal
 * under its To field; the reply form has no recipient field, so the box says it itself.
 */
export function ComplaintOverride({ recipients, form }: { recipients: string[]; form: "compose" | "reply" }) {
  return (
    <div
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950"
      data-testid="complaint-override"
    >
      {form === "reply" ? (
        <p role="alert" className="font-medium text-zinc-900 dark:text-zinc-100">
          {complaintSentence(recipients)}
        </p>
      ) : null}
      <p className="text-zinc-800 dark:text-zinc-200">
        A complaint means the recipient told their mail provider your earlier message was unwanted. Sending to them
        again can hurt the reputation of your domain with every provider, so the service stops such sends unless you
        confirm.{" "}
        {form === "reply"
          ? "Send anyway, or write to the others in a new message."
          : "Remove them from To, or send anyway."}
      </p>
      <label className="flex items-start gap-2 font-medium">
        <input type="checkbox" name="ignoreComplaints" className="mt-0.5 size-4" />
        <span>Send anyway, also to {recipients.join(", ")}</span>
      </label>
    </div>
  );
}
