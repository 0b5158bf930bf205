import type { ConnectionGroup } from "@/lib/console/connections";
import { CredentialConnectForm, CredentialDisconnectButton, InstallLinkForm } from "./connection-forms";
import { CopyButton } from "./copy-button";
import { Time } from "./ui";

/**
 * An inbox's connections, one section per channel (the channel definitions' `connection`): what is
 * connected, in words, then how to connect; a disconnect comes last in its row.
 */
export function InboxConnections({
  inboxId,
  groups,
  writable,
}: {
  inboxId: string;
  groups: ConnectionGroup[];
  /** False for a deleted inbox: nothing can be connected to it. */
  writable: boolean;
}) {
  return (
    <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
      {groups.map((g) => (
        <li key={g.channel} className="py-4 first:pt-0 last:pb-0">
          <section aria-labelledby={`conn-${g.channel}`} className="space-y-3">
            <h3 id={`conn-${g.channel}`} className="text-sm font-semibold">
              {g.label}
            </h3>
            <GroupBody inboxId={inboxId} group={g} writable={writable} />
          </section>
        </li>
      ))}
    </ul>
  );
}

const muted = "text-sm text-zinc-700 dark:text-zinc-300";

function GroupBody({ inboxId, group: g, writable }: { inboxId: string; group: ConnectionGroup; writable: boolean }) {
  const c = g.connect;
  const items =
    g.items.length === 0 ? (
      <p className={muted}>{g.none}.</p>
    ) : (
      <ul className="space-y-3">
        {g.items.map((item) => (
          <li key={item.id} className="flex flex-wrap items-start justify-between gap-3">
            <div className="min-w-0">
              <p className="font-medium break-all">{item.name}</p>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                {item.detail ? `${item.detail} · ` : ""}connected <Time value={item.since} />
              </p>
            </div>
            {c.kind === "address" ? <CopyButton value={item.name} label="Copy address" /> : null}
            {c.kind === "credential" && c.allowed && writable ? (
              <CredentialDisconnectButton
                inboxId={inboxId}
                channel={g.channel}
                name={item.name}
                note={c.disconnectNote}
              />
            ) : null}
          </li>
        ))}
      </ul>
    );
  switch (c.kind) {
    case "address":
      return (
        <>
          {items}
          <p className="text-xs text-zinc-600 dark:text-zinc-400">{c.note}</p>
        </>
      );
    case "planned":
      return (
        <>
          {items}
          <p className="text-xs text-zinc-600 dark:text-zinc-400">{c.note}</p>
        </>
      );
    case "credential":
      return (
        <>
          {items}
          {c.allowed && writable && g.items.length === 0 ? (
            <CredentialConnectForm
              inboxId={inboxId}
              channel={g.channel}
              label={g.label}
              fieldLabel={c.fieldLabel}
              hint={c.hint}
              submit={c.submit}
            />
          ) : null}
        </>
      );
    case "install":
      return (
        <>
          {items}
          {g.items.length > 0 ? <p className="text-xs text-zinc-600 dark:text-zinc-400">{c.disconnectNote}</p> : null}
          {!c.allowed || !writable ? null : c.apps.length === 0 ? (
            <p className={muted}>{c.noApps}</p>
          ) : (
            <InstallLinkForm inboxId={inboxId} channel={g.channel} label={g.label} apps={c.apps} hint={c.hint} />
          )}
        </>
      );
  }
}
