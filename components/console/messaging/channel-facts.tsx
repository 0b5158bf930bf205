import type { MessagePresentation } from "@/lib/channels/definition";
import { Time } from "../ui";

/** A tap on one of a message's buttons (an inbound interaction on the event ledger), in words. */
export interface MessageTap {
  id: string;
  at: string;
  who: string;
  words: string;
}

/**
 * What a message's channel adds beside its body: where it is in the channel (chat, Slack thread),
 * its buttons as sent — shown, never live: each says what it opens or sends — and the taps on them.
 */
export function ChannelFacts({
  id,
  presentation,
  taps,
}: {
  id: string;
  presentation: MessagePresentation;
  taps: MessageTap[];
}) {
  const { facts, buttons } = presentation;
  if (facts.length === 0 && buttons.length === 0 && taps.length === 0) return null;
  return (
    <div className="mt-3 space-y-3 border-t border-zinc-200 pt-3 text-sm dark:border-zinc-800">
      {facts.length > 0 ? (
        <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]">
          {facts.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="font-medium text-zinc-600 dark:text-zinc-400">{k}</dt>
              <dd className="min-w-0 break-all">{v}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {buttons.length > 0 ? (
        <div>
          <h3 id={`buttons-${id}`} className="text-xs font-semibold text-zinc-600 dark:text-zinc-400">
            Buttons (as the recipient sees them; not clickable here)
          </h3>
          <ol aria-labelledby={`buttons-${id}`} className="mt-1 space-y-2">
            {buttons.map((row, r) => (
              <li key={r}>
                <ul className="flex flex-wrap gap-2">
                  {row.map((b, i) => (
                    <li
                      key={i}
                      className="min-w-0 rounded-md border border-zinc-300 bg-zinc-50 px-3 py-1.5 dark:border-zinc-700 dark:bg-zinc-800"
                    >
                      <span className="block font-medium break-words">{b.text}</span>
                      <span className="block text-xs break-all text-zinc-600 dark:text-zinc-300">{b.action}</span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {taps.length > 0 ? (
        <div>
          <h3 id={`taps-${id}`} className="text-xs font-semibold text-zinc-600 dark:text-zinc-400">
            Button taps
          </h3>
          <ul aria-labelledby={`taps-${id}`} className="mt-1 space-y-1">
            {taps.map((t) => (
              <li key={t.id} className="break-words">
                {t.who}: {t.words} · <Time value={t.at} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
