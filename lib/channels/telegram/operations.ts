import { defineOperation } from "@/lib/core/operation";
import * as telegram from "./connect";
import * as actions from "./actions";
import * as c from "./contracts";
import { DEFAULT_TTS_VOICE, TTS_VOICES, ttsCapabilities } from "@/lib/providers/tts";

export const connectTelegram = defineOperation(c.connectTelegram, ({ db, principal, params, body, request }) =>
  telegram.connectTelegram(db, principal, params.inboxId, body.botToken, request?.origin ?? null),
);
export const disconnectTelegram = defineOperation(c.disconnectTelegram, ({ db, principal, params }) =>
  telegram.disconnectTelegram(db, principal, params.inboxId),
);
export const editTelegramMessage = defineOperation(
  c.editTelegramMessage,
  ({ db, principal, params, body }) => actions.editTelegramMessage(db, principal, params.messageId, body),
  { audit: { none: "a message action (the message's own edit), not a control-plane change" } },
);
export const reactTelegramMessage = defineOperation(
  c.reactTelegramMessage,
  ({ db, principal, params, body }) => actions.reactTelegramMessage(db, principal, params.messageId, body),
  { audit: { none: "a message action (a reaction), not a control-plane change" } },
);
export const unreactTelegramMessage = defineOperation(
  c.unreactTelegramMessage,
  ({ db, principal, params }) => actions.reactTelegramMessage(db, principal, params.messageId, null),
  { audit: { none: "a message action (a reaction removed), not a control-plane change" } },
);
export const listTelegramVoices = defineOperation(c.listTelegramVoices, async () => {
  const { engine, format } = await ttsCapabilities();
  return {
    object: "list" as const,
    data: TTS_VOICES.map(({ espeak: _espeak, ...v }) => ({
      object: "telegram_voice" as const,
      ...v,
      default: v.slug === DEFAULT_TTS_VOICE,
    })),
    defaultVoiceId: DEFAULT_TTS_VOICE,
    engine,
    format,
  };
});
