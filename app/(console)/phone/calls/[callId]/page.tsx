import Link from "next/link";
import { CallStatusBadge, callStatusWord, durationWords, isFinalCall } from "@/components/console/phone/words";
import { RefreshWhile } from "@/components/console/refresh-while";
import { Card, Details, ErrorNotice, Mono, NoAccess, PageHeader, Time } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getPhoneCall } from "@/lib/phone/operations";

export const metadata = { title: "Call — svc console" };

/** Seconds from the answer as m:ss. */
function offset(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const ENDED_WITHOUT_TALK = {
  failed: "The call failed",
  no_answer: "Nobody answered",
  busy: "The line was busy",
} as const;

/** One call: its status (refreshed every 2 s until final), the timeline, and once completed its summary, recording and transcript. */
export default async function CallPage({ params }: { params: Promise<{ callId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("phone:read")) return <NoAccess title="Call" what="phone calls" />;
  const call = await readOne((await params).callId, (callId) => ctx.invoke(getPhoneCall, { params: { callId } }));
  const final = isFinalCall(call.status);
  return (
    <>
      <p className="mb-2 text-sm">
        <Link className="link" href="/phone">
          ← Phone
        </Link>
      </p>
      <PageHeader
        title={`Call to ${call.to}`}
        description={
          final
            ? `${call.direction === "inbound" ? "Inbound" : "Outbound"} call from ${call.from}.`
            : "This call is still going on; this page updates every 2 seconds."
        }
      />
      <RefreshWhile active={!final} />
      <div className="space-y-6">
        <Details
          items={[
            ["Status", <CallStatusBadge key="s" status={call.status} />],
            ["From", <Mono key="f">{call.from}</Mono>],
            ["To", <Mono key="t">{call.to}</Mono>],
            ["Direction", call.direction === "inbound" ? "Inbound (answered by the number's assistant)" : "Outbound"],
            ["Voice and language", `${call.voice}, ${call.language}`],
            ["Placed", <Time key="c" value={call.createdAt} />],
            ["Answered", call.answeredAt ? <Time key="a" value={call.answeredAt} /> : "Not answered"],
            ["Ended", call.endedAt ? <Time key="e" value={call.endedAt} /> : "Not yet"],
            ["Duration", durationWords(call.durationSeconds)],
            ["Id", <Mono key="i">{call.id}</Mono>],
          ]}
        />
        {call.status in ENDED_WITHOUT_TALK ? (
          <ErrorNotice>
            {ENDED_WITHOUT_TALK[call.status as keyof typeof ENDED_WITHOUT_TALK]}
            {call.failureReason ? `: ${call.failureReason}` : "."}
          </ErrorNotice>
        ) : null}

        <section aria-labelledby="timeline" className="space-y-2">
          <h2 id="timeline" className="text-base font-semibold">
            Status timeline
          </h2>
          <ol
            className="space-y-2 border-l-2 border-zinc-200 pl-4 text-sm dark:border-zinc-800"
            data-testid="call-timeline"
          >
            {call.timeline.map((t, i) => (
              <li key={`${t.status}-${i}`}>
                <span className="font-medium">{callStatusWord(t.status)}</span>{" "}
                <span className="text-zinc-600 dark:text-zinc-400">
                  <Time value={t.at} />
                </span>
                {t.reason ? <span className="block text-zinc-700 dark:text-zinc-300">{t.reason}</span> : null}
              </li>
            ))}
          </ol>
        </section>

        <Card title="Instructions">
          <p className="text-sm whitespace-pre-wrap">{call.instructions}</p>
          {call.greeting ? (
            <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">Greeting: “{call.greeting}”</p>
          ) : null}
        </Card>

        {call.summary ? (
          <Card title="Summary">
            <div className="space-y-2 text-sm">
              <p>
                <span className="font-medium">Outcome:</span> {call.summary.outcome}
              </p>
              <p>{call.summary.text}</p>
              {call.summary.keyPoints.length > 0 ? (
                <ul className="list-disc space-y-1 pl-5">
                  {call.summary.keyPoints.map((k, i) => (
                    <li key={i}>{k}</li>
                  ))}
                </ul>
              ) : null}
            </div>
          </Card>
        ) : null}

        {call.recording ? (
          <Card title="Recording">
            <div className="space-y-2 text-sm">
              {/* No captions track: the transcript below is the recording's text. */}
              <audio
                controls
                preload="none"
                src={call.recording.url}
                className="w-full max-w-md"
                aria-label="Call recording"
              >
                <a className="link" href={call.recording.url}>
                  Download the recording
                </a>
              </audio>
              <p className="text-zinc-600 dark:text-zinc-400">
                {durationWords(call.recording.durationSeconds)}. The link works until{" "}
                <Time value={call.recording.expiresAt} />; reload the page for a fresh one.
                {call.recording.note ? ` ${call.recording.note}` : ""}
              </p>
            </div>
          </Card>
        ) : null}

        {call.transcript ? (
          <section aria-labelledby="transcript" className="space-y-2">
            <h2 id="transcript" className="text-base font-semibold">
              Transcript
            </h2>
            <ol className="space-y-3 text-sm" data-testid="call-transcript">
              {call.transcript.turns.map((turn, i) => (
                <li key={i} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
                  <p className="text-xs font-semibold text-zinc-600 dark:text-zinc-400">
                    {turn.speaker === "agent" ? "Assistant" : "Callee"} · {offset(turn.startSeconds)}
                  </p>
                  <p className="mt-1 whitespace-pre-wrap">{turn.text}</p>
                </li>
              ))}
            </ol>
          </section>
        ) : final ? null : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            The transcript, summary and recording appear once the call completes.
          </p>
        )}
      </div>
    </>
  );
}
