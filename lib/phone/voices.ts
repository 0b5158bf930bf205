/** The spec's 22 voice ids (PhoneVoice), for `voice` on a call and `inboundVoice` on a number. */
export const VOICE_IDS = [
  "marin",
  "cedar",
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "sage",
  "shimmer",
  "verse",
  "quartz",
  "ripple",
  "vesper",
  "willow",
  "stone",
  "gleam",
  "meridian",
  "bossa",
  "tempo",
  "beacon",
  "delta",
  "cinder",
] as const;
export type VoiceId = (typeof VOICE_IDS)[number];

export interface PhoneVoice {
  voiceId: VoiceId;
  name: string;
  language: "multilingual" | "en" | "pt";
  description: string;
  gender: "female" | "male" | "neutral";
  accent: string | null;
}

const v = (
  voiceId: VoiceId,
  language: PhoneVoice["language"],
  gender: PhoneVoice["gender"],
  accent: string | null,
  description: string,
): PhoneVoice => ({
  voiceId,
  name: voiceId[0]?.toUpperCase() + voiceId.slice(1),
  language,
  gender,
  accent,
  description,
});

/** The catalogue `GET /v1/phone/voices` answers (names, genders and descriptions are this service's own). */
export const VOICES: readonly PhoneVoice[] = [
  v("marin", "multilingual", "female", null, "Clear and warm; the default for outbound calls."),
  v("cedar", "multilingual", "male", null, "Calm and grounded, for support calls."),
  v("alloy", "multilingual", "neutral", null, "Balanced and neutral."),
  v("ash", "multilingual", "male", null, "Soft-spoken and friendly."),
  v("ballad", "multilingual", "male", "British", "Expressive, with a gentle lilt."),
  v("coral", "multilingual", "female", null, "Bright and upbeat."),
  v("echo", "multilingual", "male", null, "Resonant and steady."),
  v("sage", "multilingual", "female", null, "Measured and reassuring."),
  v("shimmer", "multilingual", "female", null, "Light and energetic."),
  v("verse", "multilingual", "male", null, "Versatile and conversational."),
  v("quartz", "en", "female", "American", "Crisp and precise, for reminders and confirmations."),
  v("ripple", "en", "male", "American", "Relaxed and easy-going."),
  v("vesper", "en", "female", "British", "Poised and formal."),
  v("willow", "en", "female", "Australian", "Gentle and patient."),
  v("stone", "en", "male", "American", "Deep and authoritative."),
  v("gleam", "en", "female", "American", "Cheerful, for sales and outreach."),
  v("meridian", "en", "neutral", "British", "Even and professional."),
  v("bossa", "pt", "female", "Brazilian", "Warm Brazilian Portuguese."),
  v("tempo", "pt", "male", "Brazilian", "Lively Brazilian Portuguese."),
  v("beacon", "en", "male", "Irish", "Bright and clear."),
  v("delta", "en", "male", "American (Southern)", "Unhurried and warm."),
  v("cinder", "en", "female", "Scottish", "Husky and confident."),
];
