/**
 * The text-to-speech voice catalog (`GET /v1/telegram/voices`): a voice's `slug` is what a send
 * names as `telegram.voice.voiceId`; `adrian` when it names none. Each voice maps onto an espeak-ng
 * voice and variant for the embedded engine. Pure data: the channel definitions import it.
 */
export interface TtsVoice {
  slug: string;
  name: string;
  /** ISO 639-1 language code of what the voice speaks. */
  language: string;
  accent: string;
  gender: "male" | "female";
  description: string;
  /** espeak-ng's `-v` argument: language, then `+` variant. */
  espeak: string;
}

export const TTS_VOICES = [
  {
    slug: "adrian",
    name: "Adrian",
    language: "en",
    accent: "American",
    gender: "male",
    description: "Calm American English; the default voice.",
    espeak: "en-us+m3",
  },
  {
    slug: "amelia",
    name: "Amelia",
    language: "en",
    accent: "British",
    gender: "female",
    description: "Clear British English.",
    espeak: "en-gb+f3",
  },
  {
    slug: "oliver",
    name: "Oliver",
    language: "en",
    accent: "British",
    gender: "male",
    description: "Deeper British English.",
    espeak: "en-gb+m1",
  },
  {
    slug: "sofia",
    name: "Sofia",
    language: "es",
    accent: "Castilian",
    gender: "female",
    description: "Spanish (Spain).",
    espeak: "es+f2",
  },
  {
    slug: "lucas",
    name: "Lucas",
    language: "pt",
    accent: "Brazilian",
    gender: "male",
    description: "Brazilian Portuguese.",
    espeak: "pt-br+m2",
  },
  {
    slug: "lena",
    name: "Lena",
    language: "de",
    accent: "Standard German",
    gender: "female",
    description: "German.",
    espeak: "de+f4",
  },
] as const satisfies readonly TtsVoice[];

export type TtsVoiceId = (typeof TTS_VOICES)[number]["slug"];
export const TTS_VOICE_IDS = TTS_VOICES.map((v) => v.slug) as [TtsVoiceId, ...TtsVoiceId[]];
export const DEFAULT_TTS_VOICE: TtsVoiceId = "adrian";

export const ttsVoice = (slug: string): TtsVoice => TTS_VOICES.find((v) => v.slug === slug) ?? TTS_VOICES[0];
