"use client";

import Link from "next/link";
import { useRef, useState } from "react";
import { replyAction } from "@/lib/console/actions/threads";
import { Button, FormError, formValues, TextArea, useAction } from "../form";
import { ComplaintOverride, useComplaintOverride } from "./complaint-override";
import { errorFor, formLevel } from "./errors";
import { inputRules } from "@/components/console/contract-input";
import { replyInThread } from "@/lib/messages/contracts";

type Replied = Extract<Awaited<ReturnType<typeof replyAction>>, { ok: true }>["data"];

/** The reply box under a conversation; on success the page refreshes and the reply appears in it. */
export function ReplyForm({ threadId, from, to }: { threadId: string; from: string; to: string }) {
  const form = useRef<HTMLFormElement>(null);
  const [replied, setReplied] = useState<Replied | null>(null);
  const reply = useAction(replyAction, {
    onSuccess: (data) => {
      setReplied(data);
      form.current?.reset();
    },
  });
  // The latest message's recipients include one who complained: the reply offers to send anyway.
  const { complained, offered } = useComplaintOverride(reply.failure, reply.isPending);
  return (
    <form
      ref={form}
      noValidate
      aria-label="Reply to this conversation"
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        setReplied(null);
        const values = formValues(e.currentTarget);
        reply.mutate({
          threadId,
          text: values.text ?? "",
          ...(values.ignoreComplaints === "on" ? { ignoreComplaints: true } : {}),
        });
      }}
    >
      <TextArea
        label="Reply"
        name="text"
        {...inputRules(replyInThread.body, "text")}
        rows={5}
        hint={`From ${from} to ${to}.`}
        error={errorFor(reply.failure, "text")}
      />
      {offered ? <ComplaintOverride recipients={offered} form="reply" /> : null}
      <div className="flex flex-wrap items-center gap-3" aria-live="polite">
        <Button pending={reply.isPending}>Send reply</Button>
        {replied && replied.status !== "failed" ? (
          <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
            Reply {replied.status}.
          </p>
        ) : null}
      </div>
      {replied?.status === "failed" ? (
        <p
          role="alert"
          className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
        >
          The reply could not be delivered ({replied.error ?? "failed"}).{" "}
          <Link className="link" href={`/messages/${replied.id}`}>
            See the message
          </Link>
        </p>
      ) : null}
      <FormError failure={complained ? null : formLevel(reply.failure, ["text"])} beside={reply.failure} />
    </form>
  );
}
