import { spawn } from "node:child_process";
import { env } from "@/lib/env";
import { silentOggOpus } from "./ogg-opus";
import { DEFAULT_TTS_VOICE, ttsVoice } from "./voices";

export { DEFAULT_TTS_VOICE, TTS_VOICE_IDS, TTS_VOICES, type TtsVoice, ttsVoice } from "./voices";

/** What to say, and in which voice of the catalog (`voices.ts`). */
export interface SpeechInput {
  text: string;
  voiceId?: string | null;
}

/** Synthesized speech: an audio file and how it was made (kept in the message's `channelMetadata.voice`). */
export interface Speech {
  audio: Buffer;
  contentType: string;
  filename: string;
  /** `ogg_opus`: what Telegram's `sendVoice` plays as a voice note; `wav` when the host has no Opus encoder. */
  format: "ogg_opus" | "wav";
  /** `espeak-ng` spoke the text; `silent`: no engine on this host, a short silent note instead. */
  engine: "espeak-ng" | "silent";
  voiceId: string;
  durationSeconds: number;
  /** Why the note is not spoken Opus (no espeak-ng, no encoder), or null. */
  note: string | null;
}

/** A text-to-speech provider. The default is the embedded one (`embeddedTts`): espeak-ng where installed. */
export interface TtsProvider {
  name: string;
  synthesize(input: SpeechInput): Promise<Speech>;
}

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs `cmd` with `input` on stdin; null when the program is not installed (ENOENT). */
function run(cmd: string, args: string[], input: Buffer | string | null, timeoutMs = 30_000): Promise<Run | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], timeout: timeoutMs });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > 32 * 1024 * 1024) child.kill("SIGKILL");
      else out.push(c);
    });
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? resolve(null) : reject(e)));
    child.on("close", (code) =>
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8").slice(0, 300) }),
    );
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? undefined);
  });
}

/**
 * A WAV file as espeak-ng writes it to a pipe (its RIFF and data sizes unknown, so left at their
 * maximum) with the sizes set, and its duration; null when it is no PCM WAV.
 */
export function fixWav(wav: Buffer): { wav: Buffer; seconds: number } | null {
  if (wav.length < 44 || wav.toString("ascii", 0, 4) !== "RIFF" || wav.toString("ascii", 8, 12) !== "WAVE") return null;
  let at = 12;
  let byteRate = 0;
  while (at + 8 <= wav.length) {
    const id = wav.toString("ascii", at, at + 4);
    if (id === "fmt ") byteRate = wav.readUInt32LE(at + 16);
    if (id === "data") {
      const out = Buffer.from(wav);
      const dataLength = wav.length - (at + 8);
      out.writeUInt32LE(dataLength, at + 4);
      out.writeUInt32LE(wav.length - 8, 4);
      return { wav: out, seconds: byteRate > 0 ? dataLength / byteRate : 0 };
    }
    at += 8 + wav.readUInt32LE(at + 4);
  }
  return null;
}

/** A WAV as Ogg Opus through `opusenc`, else `ffmpeg`; null when neither is installed (or both fail). */
async function toOggOpus(wav: Buffer): Promise<Buffer | null> {
  const opusenc = await run(env.TTS_OPUSENC_PATH, ["--quiet", "-", "-"], wav).catch(() => null);
  if (opusenc?.code === 0 && opusenc.stdout.length > 0) return opusenc.stdout;
  const ffmpeg = await run(
    env.TTS_FFMPEG_PATH,
    ["-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-c:a", "libopus", "-b:a", "32k", "-f", "ogg", "pipe:1"],
    wav,
  ).catch(() => null);
  if (ffmpeg?.code === 0 && ffmpeg.stdout.length > 0) return ffmpeg.stdout;
  return null;
}

function silent(voiceId: string, note: string): Speech {
  return {
    audio: silentOggOpus(1),
    contentType: "audio/ogg",
    filename: "voice.ogg",
    format: "ogg_opus",
    engine: "silent",
    voiceId,
    durationSeconds: 1,
    note,
  };
}

/**
 * The embedded provider: espeak-ng (`TTS_ESPEAK_PATH`) speaks the text in the voice's espeak voice
 * into a WAV, which `opusenc` or `ffmpeg` turn into Ogg Opus when either is installed (else the
 * WAV is sent as it is, said in `note`). Without espeak-ng (or when it fails, or `TTS_PROVIDER` is
 * `silent`), a one-second silent Ogg Opus note, said in `note`. Never throws for a missing program.
 */
export const embeddedTts: TtsProvider = {
  name: "embedded",
  async synthesize(input) {
    const voice = ttsVoice(input.voiceId ?? DEFAULT_TTS_VOICE);
    if (env.TTS_PROVIDER === "silent") return silent(voice.slug, "TTS_PROVIDER=silent: a silent note was sent.");
    const spoken = await run(env.TTS_ESPEAK_PATH, ["-v", voice.espeak, "--stdout", "--stdin"], input.text).catch(
      (err: unknown) => ({ code: -1, stdout: Buffer.alloc(0), stderr: String(err) }),
    );
    if (!spoken) return silent(voice.slug, "espeak-ng is not installed on this host: a silent note was sent.");
    const wav = spoken.code === 0 ? fixWav(spoken.stdout) : null;
    if (!wav)
      return silent(
        voice.slug,
        `espeak-ng failed (${spoken.stderr || `exit ${spoken.code}`}): a silent note was sent.`,
      );
    const ogg = await toOggOpus(wav.wav);
    if (ogg)
      return {
        audio: ogg,
        contentType: "audio/ogg",
        filename: "voice.ogg",
        format: "ogg_opus",
        engine: "espeak-ng",
        voiceId: voice.slug,
        durationSeconds: wav.seconds,
        note: null,
      };
    return {
      audio: wav.wav,
      contentType: "audio/wav",
      filename: "voice.wav",
      format: "wav",
      engine: "espeak-ng",
      voiceId: voice.slug,
      durationSeconds: wav.seconds,
      note: "No Opus encoder (opusenc or ffmpeg) on this host: the voice note was sent as WAV, which Telegram may not play as a voice note.",
    };
  },
};

export const ttsProvider = (): TtsProvider => embeddedTts;

/** What the embedded engine would produce on this host now (for the voice catalog): probed, cached per settings. */
let probed: { key: string; value: Promise<{ engine: Speech["engine"]; format: Speech["format"] }> } | null = null;
export function ttsCapabilities(): Promise<{ engine: Speech["engine"]; format: Speech["format"] }> {
  const key = [env.TTS_PROVIDER, env.TTS_ESPEAK_PATH, env.TTS_OPUSENC_PATH, env.TTS_FFMPEG_PATH].join("\0");
  if (probed?.key !== key) {
    const value = (async () => {
      if (env.TTS_PROVIDER === "silent") return { engine: "silent" as const, format: "ogg_opus" as const };
      const espeak = await run(env.TTS_ESPEAK_PATH, ["--version"], null, 5_000).catch(() => null);
      if (!espeak || espeak.code !== 0) return { engine: "silent" as const, format: "ogg_opus" as const };
      const opusenc = await run(env.TTS_OPUSENC_PATH, ["--version"], null, 5_000).catch(() => null);
      const ffmpeg =
        opusenc?.code === 0 ? null : await run(env.TTS_FFMPEG_PATH, ["-version"], null, 5_000).catch(() => null);
      return {
        engine: "espeak-ng" as const,
        format: opusenc?.code === 0 || ffmpeg?.code === 0 ? ("ogg_opus" as const) : ("wav" as const),
      };
    })();
    probed = { key, value };
  }
  return probed.value;
}
