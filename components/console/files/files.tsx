"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import {
  createShareLinkAction,
  deleteObjectAction,
  finalizeUploadAction,
  requestUploadAction,
  revokeShareLinkAction,
} from "@/lib/console/actions/files";
import { CopyButton } from "../copy-button";
import { Button, Field, FormError, useAction, useActionForm } from "../form";
import { ConfirmButton } from "../dialog";
import { Badge, Mono, Table, Td, Time } from "../ui";

interface Presigned {
  objectId: string;
  uploadUrl: string;
  headers: Record<string, string>;
}

/** PUTs the bytes with exactly the returned headers, reporting progress (XMLHttpRequest has upload progress; fetch does not). */
function put(target: Presigned, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", target.uploadUrl);
    for (const [k, v] of Object.entries(target.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`The upload was refused (${xhr.status}).`));
    xhr.onerror = () => reject(new Error("The upload failed; check your connection and retry."));
    xhr.send(file);
  });
}

/** Drag-and-drop (or pick) a file: upload URL, PUT with a progress bar, finalize; the scan starts. */
export function UploadBox({ bucketId }: { bucketId: string }) {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [state, setState] = useState<{ name: string; progress: number; error: string | null; done: boolean } | null>(
    null,
  );
  const request = useAction(requestUploadAction, { refresh: false });
  const finalize = useAction(finalizeUploadAction);

  async function upload(file: File) {
    setState({ name: file.name, progress: 0, error: null, done: false });
    try {
      const target = (await request.mutateAsync({
        bucketId,
        filename: file.name,
        contentType: file.type || "application/octet-stream",
        size: file.size,
      })) as Presigned;
      await put(target, file, (progress) => setState((s) => (s ? { ...s, progress } : s)));
      await finalize.mutateAsync({ bucketId, objectId: target.objectId });
      setState((s) => (s ? { ...s, progress: 1, done: true } : s));
      router.refresh();
    } catch (err) {
      setState((s) => (s ? { ...s, error: err instanceof Error ? err.message : "The upload failed." } : s));
    }
  }

  const onFiles = (files: FileList | null) => {
    const file = files?.[0];
    if (file) void upload(file);
  };

  return (
    <div className="space-y-3">
      <div
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          onFiles(e.dataTransfer.files);
        }}
        className={`flex flex-col items-center gap-2 rounded-lg border-2 border-dashed p-6 text-sm ${over ? "border-zinc-900 bg-zinc-50 dark:border-zinc-100 dark:bg-zinc-900" : "border-zinc-300 dark:border-zinc-700"}`}
      >
        <p>Drop a file here, or</p>
        <label className="cursor-pointer rounded border border-zinc-300 px-3 py-1 font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
          Choose a file
          <input ref={input} type="file" className="sr-only" onChange={(e) => onFiles(e.currentTarget.files)} />
        </label>
      </div>
      {state ? (
        <div aria-live="polite" className="space-y-1 text-sm">
          <div className="flex justify-between">
            <span>{state.name}</span>
            <span>
              {state.error ? "failed" : state.done ? "uploaded, scanning…" : `${Math.round(state.progress * 100)}%`}
            </span>
          </div>
          <progress className="w-full" max={1} value={state.progress} aria-label={`Upload of ${state.name}`} />
          {state.error ? (
            <p role="alert" className="text-red-700 dark:text-red-400">
              {state.error}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** Delete a file (its share links go with it). */
export function FileRowActions({
  bucketId,
  objectId,
  filename,
}: {
  bucketId: string;
  objectId: string;
  filename: string;
}) {
  const remove = useAction(deleteObjectAction);
  return (
    <ConfirmButton
      label="Delete"
      ariaLabel={`Delete ${filename}`}
      pending={remove.isPending}
      title={`Delete ${filename}?`}
      description="The file is deleted and its share links stop working. This cannot be undone."
      confirmLabel="Delete file"
      onConfirm={() => remove.mutate({ bucketId, objectId })}
    />
  );
}

interface LinkView {
  id: string;
  hasPassword: boolean;
  maxUses: number | null;
  oneTime: boolean;
  usesCount: number;
  expiresAt: string | null;
  revoked: boolean;
  createdAt: string;
  opens: { views: number; downloads: number; refused: number; lastOpenedAt: string | null } | null;
}

/** Create a share link (URLs shown once, with copy buttons) and the links with their uses and opens. */
export function ShareLinks({
  bucketId,
  objectId,
  canShare,
  scanStatus,
  links,
}: {
  bucketId: string;
  objectId: string;
  canShare: boolean;
  scanStatus: string;
  links: LinkView[];
}) {
  const [created, setCreated] = useState<{ shareUrl: string; downloadUrl: string } | null>(null);
  const create = useActionForm(createShareLinkAction, {
    reset: true,
    extra: () => ({ bucketId, objectId }),
    onSuccess: (data) => setCreated({ shareUrl: data.shareUrl, downloadUrl: data.downloadUrl }),
  });
  const revoke = useAction(revokeShareLinkAction);
  return (
    <div className="space-y-4">
      {canShare ? (
        <form
          {...create.formProps}
          onSubmit={(e) => {
            // Numbers and booleans as the API takes them.
            e.preventDefault();
            const data = new FormData(e.currentTarget);
            const values: Record<string, unknown> = { bucketId, objectId };
            const password = data.get("password");
            const maxUses = data.get("maxUses");
            const expiresAt = data.get("expiresAt");
            if (typeof password === "string" && password) values.password = password;
            if (typeof maxUses === "string" && maxUses) values.maxUses = Number(maxUses);
            if (data.get("oneTime")) values.oneTime = true;
            if (typeof expiresAt === "string" && expiresAt) values.expiresAt = new Date(expiresAt).toISOString();
            create.mutate(values);
          }}
          aria-label="Create a share link"
          className="grid gap-3 sm:grid-cols-2"
        >
          <Field
            label="Password (optional)"
            name="password"
            type="password"
            autoComplete="new-password"
            error={create.fieldError("password")}
          />
          <Field
            label="Maximum uses (optional)"
            name="maxUses"
            type="number"
            min={1}
            error={create.fieldError("maxUses")}
          />
          <Field
            label="Expires (optional)"
            name="expiresAt"
            type="datetime-local"
            error={create.fieldError("expiresAt")}
          />
          <label className="flex items-center gap-2 self-end text-sm">
            <input type="checkbox" name="oneTime" value="true" /> One download only
          </label>
          <div className="sm:col-span-2">
            <Button pending={create.isPending}>Create share link</Button>
          </div>
          <div className="sm:col-span-2">
            <FormError failure={create.failure} />
          </div>
        </form>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {scanStatus === "clean"
            ? "You can view this file's links."
            : `Only clean files can be shared; this one is ${scanStatus}.`}
        </p>
      )}
      {created ? (
        <div
          role="status"
          className="space-y-2 rounded border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950"
        >
          <p className="font-medium">Share link created. Copy it now: it is not shown again.</p>
          <div className="flex flex-wrap items-center gap-2">
            Page: <Mono>{created.shareUrl}</Mono> <CopyButton value={created.shareUrl} label="Copy page link" />
          </div>
          <div className="flex flex-wrap items-center gap-2">
            Download: <Mono>{created.downloadUrl}</Mono>{" "}
            <CopyButton value={created.downloadUrl} label="Copy download link" />
          </div>
        </div>
      ) : null}
      {links.length > 0 ? (
        <Table head={["Link", "Uses", "Opens", "Expires", ""]} caption="Share links">
          {links.map((l) => (
            <tr key={l.id}>
              <Td>
                <Mono>{l.id}</Mono>
                <span className="mt-1 flex gap-1">
                  {l.hasPassword ? <Badge tone="blue">password</Badge> : null}
                  {l.oneTime ? <Badge>one-time</Badge> : null}
                  {l.revoked ? <Badge tone="red">revoked</Badge> : null}
                </span>
              </Td>
              <Td>
                {l.usesCount}
                {l.maxUses !== null ? ` / ${l.maxUses}` : ""}
              </Td>
              <Td>
                {l.opens ? `${l.opens.views} views, ${l.opens.downloads} downloads, ${l.opens.refused} refused` : "—"}
              </Td>
              <Td>{l.expiresAt ? <Time value={l.expiresAt} /> : "never"}</Td>
              <Td>
                {canShare && !l.revoked ? (
                  <Button
                    variant="secondary"
                    pending={revoke.isPending}
                    onClick={() => revoke.mutate({ bucketId, objectId, linkId: l.id })}
                  >
                    Revoke
                  </Button>
                ) : null}
              </Td>
            </tr>
          ))}
        </Table>
      ) : null}
    </div>
  );
}
