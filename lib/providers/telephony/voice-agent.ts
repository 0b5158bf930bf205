import { ttsProvider } from "@/lib/providers/tts";

/**
 * The voice-agent port: the AI on the line (speech in, speech out) that follows a call's
 * `instructions` after its `greeting`, in its `voice` and `language`, and hands back what the call
 * leaves behind — the transcript (turns with speaker and time), a structured summary and a
 * recording. `voiceAgent()` picks the deployment's; the embedded default is the simulated agent:
 * a deterministic conversation built from the greeting and the instructions (the agent says the
 * greeting, then each sentence of the instructions, the callee answering each in turn, cut at
 * `maxDurationSeconds`), its summary, and a recording of the agent's lines (espeak-ng through
 * `lib/providers/tts` where installed, else a silent WAV of the call's length, said in the
 * recording's `note`).
 *
 * A real agent plugs in here: Twilio ConversationRelay (the voice webhook's TwiML would
 * `<Connect><ConversationRelay url="wss://…"/>`, and this service would serve that WebSocket: text
 * prompts in, text replies out from an LLM following `instructions`; the transcript is what passed
 * over it, the recording Twilio's `RecordingUrl`), or Vapi / Retell (their call APIs take the
 * instructions as the assistant's prompt and send an end-of-call report with transcript, summary
 * and recording URL, which `conversation` would read).
 */

export interface Turn {
  speaker: "agent" | "callee";
  text: string;
  startSeconds: number;
}

export interface CallSummary {
  outcome: string;
  text: string;
  keyPoints: string[];
  turns: number;
  durationSeconds: number;
}

export interface Recording {
  bytes: Buffer;
  contentType: string;
  filename: string;
  engine: "espeak-ng" | "silent";
  durationSeconds: number;
  note: string | null;
}

/** What the agent is told for one call. */
export interface AgentCall {
  greeting: string | null;
  instructions: string;
  voice: string;
  language: string;
  maxDurationSeconds: number;
}

/** What a finished call leaves behind. */
export interface Conversation {
  turns: Turn[];
  durationSeconds: number;
  summary: CallSummary;
  recording: Recording;
}

export interface VoiceAgent {
  /** `simulated`, or the real agent's name. */
  readonly name: string;
  /** The finished call's transcript, summary and recording (asked once its provider reports it completed). */
  conversation(call: AgentCall): Promise<Conversation>;
}

const CALLEE_LINES = ["Hello?", "Okay.", "I see.", "Sure, go on.", "Understood.", "Yes, that works."];
const MAX_SENTENCES = 8;

/** Seconds a line takes to say (about 2.5 words a second, plus a pause). */
const secondsOf = (text: string) => Math.ceil(text.split(/\s+/).filter(Boolean).length / 2.5) + 1;

const sentencesOf = (text: string): string[] =>
  text
    .replace(/\s+/g, " ")
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, MAX_SENTENCES);

/** The conversation, cut at `maxDurationSeconds`; its length in whole seconds. */
export function buildTranscript(input: { greeting: string | null; instructions: string; maxDurationSeconds: number }): {
  turns: Turn[];
  durationSeconds: number;
} {
  const lines: { speaker: Turn["speaker"]; text: string }[] = [
    { speaker: "callee", text: CALLEE_LINES[0] ?? "Hello?" },
    { speaker: "agent", text: input.greeting ?? "Hello, this is an automated assistant calling." },
  ];
  sentencesOf(input.instructions).forEach((s, i) => {
    lines.push({ speaker: "agent", text: s });
    lines.push({ speaker: "callee", text: CALLEE_LINES[1 + (i % (CALLEE_LINES.length - 1))] ?? "Okay." });
  });
  lines.push({ speaker: "agent", text: "Thank you for your time. Goodbye." }, { speaker: "callee", text: "Goodbye." });
  const turns: Turn[] = [];
  let at = 0;
  for (const line of lines) {
    if (at >= input.maxDurationSeconds) break;
    turns.push({ ...line, startSeconds: at });
    at += secondsOf(line.text);
  }
  return { turns, durationSeconds: Math.min(at, input.maxDurationSeconds) };
}

export function buildSummary(turns: Turn[], durationSeconds: number, complete: boolean): CallSummary {
  const keyPoints = turns
    .filter((t, i) => t.speaker === "agent" && i > 1 && !t.text.startsWith("Thank you for your time"))
    .map((t) => t.text)
    .slice(0, 5);
  const acknowledged = turns.filter((t) => t.speaker === "callee").length;
  return {
    outcome: complete ? "completed" : "cut_off_at_max_duration",
    text: `The assistant covered ${keyPoints.length} point${keyPoints.length === 1 ? "" : "s"} in ${durationSeconds} s; the callee answered ${acknowledged} time${acknowledged === 1 ? "" : "s"}${complete ? " and the call ended normally" : " before the maximum duration cut the call"}.`,
    keyPoints,
    turns: turns.length,
    durationSeconds,
  };
}

/** A mono 8 kHz 8-bit PCM WAV of silence. */
export function silentWav(seconds: number): Buffer {
  const rate = 8000;
  const data = Math.max(1, Math.round(seconds * rate));
  const out = Buffer.alloc(44 + data, 0x80);
  out.write("RIFF", 0, "ascii");
  out.writeUInt32LE(36 + data, 4);
  out.write("WAVEfmt ", 8, "ascii");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate, 28);
  out.writeUInt16LE(1, 32);
  out.writeUInt16LE(8, 34);
  out.write("data", 36, "ascii");
  out.writeUInt32LE(data, 40);
  return out;
}

/** The agent's lines spoken by the embedded TTS; a silent WAV (at most 30 s) when it has no engine. */
export async function recordCall(turns: Turn[], durationSeconds: number): Promise<Recording> {
  const text = turns
    .filter((t) => t.speaker === "agent")
    .map((t) => t.text)
    .join(" ");
  const speech = await ttsProvider()
    .synthesize({ text })
    .catch(() => null);
  if (speech && speech.engine === "espeak-ng")
    return {
      bytes: speech.audio,
      contentType: speech.contentType,
      filename: speech.format === "wav" ? "recording.wav" : "recording.ogg",
      engine: "espeak-ng",
      durationSeconds: speech.durationSeconds,
      note: null,
    };
  const seconds = Math.min(30, Math.max(1, durationSeconds));
  return {
    bytes: silentWav(seconds),
    contentType: "audio/wav",
    filename: "recording.wav",
    engine: "silent",
    durationSeconds: seconds,
    note: `No speech engine on this host (${speech?.note ?? "the TTS provider failed"}): the recording is silence.`,
  };
}

/** The embedded default: the deterministic conversation above, recorded by the embedded TTS. */
export const simulatedVoiceAgent: VoiceAgent = {
  name: "simulated",
  async conversation(call) {
    const { turns, durationSeconds } = buildTranscript(call);
    const complete = turns[turns.length - 1]?.text === "Goodbye.";
    return {
      turns,
      durationSeconds,
      summary: buildSummary(turns, durationSeconds, complete),
      recording: await recordCall(turns, durationSeconds),
    };
  },
};

/** The voice agent of this deployment (only the simulated one is built). */
export function voiceAgent(): VoiceAgent {
  return simulatedVoiceAgent;
}
