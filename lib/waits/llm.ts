import { z } from "zod";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import {
  deterministicMatcher,
  type MatchInput,
  type MatchResult,
  matchDeterministic,
  messageContains,
  type VerificationMatcher,
} from "./matcher";

export interface LlmConfig {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

/** What the model must answer (structured output), validated before anything of it is used. */
const answerSchema = z.strictObject({
  found: z.boolean(),
  kind: z.enum(["code", "link"]).nullable(),
  value: z.string().max(2048).nullable(),
});

const JSON_SCHEMA = {
  name: "verification_result",
  strict: true,
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["found", "kind", "value"],
    properties: {
      found: { type: "boolean" },
      kind: { type: ["string", "null"], enum: ["code", "link", null] },
      value: { type: ["string", "null"] },
    },
  },
};

const SYSTEM =
  "You extract the verification code or verification/sign-in link from one message. Answer JSON only: " +
  '{"found": boolean, "kind": "code"|"link"|null, "value": string|null}. The value must appear verbatim in the message. ' +
  "Never answer dates, times, prices, phone, order, invoice or reference numbers. If unsure, found=false.";

const cut = (s: string | null, n: number) => (s && s.length > n ? s.slice(0, n) : s);

/**
 * The LLM matcher: an OpenAI-compatible `/chat/completions` call with a JSON-schema response format.
 * Its answer is parsed with `answerSchema` and then must pass `messageContains` — a model that
 * invents a code the message lacks is refused (null, logged). A failed call (network, timeout,
 * non-2xx, unparseable) falls back to the deterministic matcher.
 */
export function llmMatcher(config: LlmConfig): VerificationMatcher {
  return {
    name: "llm",
    async match(message: MatchInput, instruction: string | null): Promise<MatchResult | null> {
      let answer: z.infer<typeof answerSchema>;
      try {
        const res = await fetch(`${config.baseUrl.replace(/\/$/, "")}/chat/completions`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: config.model,
            temperature: 0,
            response_format: { type: "json_schema", json_schema: JSON_SCHEMA },
            messages: [
              { role: "system", content: SYSTEM },
              {
                role: "user",
                content: JSON.stringify({
                  instruction: instruction ?? "any verification, one-time or confirmation code",
                  subject: cut(message.subject, 500),
                  text: cut(message.text, 20_000),
                  html: message.text ? null : cut(message.html, 40_000),
                }),
              },
            ],
          }),
          signal: AbortSignal.timeout(config.timeoutMs),
        });
        if (!res.ok) throw new Error(`LLM answered ${res.status}`);
        const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
        const content = body.choices?.[0]?.message?.content;
        answer = answerSchema.parse(JSON.parse(typeof content === "string" ? content : ""));
      } catch (err) {
        log.warn("LLM matcher failed; the deterministic matcher answers", { error: String(err) });
        return matchDeterministic(message, instruction);
      }
      if (!answer.found || !answer.kind || !answer.value) return null;
      const result: MatchResult = { kind: answer.kind, value: answer.value.trim() };
      if (!messageContains(message, result)) {
        log.warn("LLM matcher answered a value the message does not contain; refused", { kind: result.kind });
        return null;
      }
      return result;
    },
  };
}

/** The deployment's LLM server, or null when `LLM_BASE_URL` is unset. */
export function llmConfig(): LlmConfig | null {
  return env.LLM_BASE_URL
    ? {
        baseUrl: env.LLM_BASE_URL,
        apiKey: env.LLM_API_KEY ?? null,
        model: env.LLM_MODEL,
        timeoutMs: env.LLM_TIMEOUT_MS,
      }
    : null;
}

let configured: VerificationMatcher | null = null;

/** The matcher of this deployment: the LLM one when `LLM_BASE_URL` is set, else the deterministic one. */
export function activeMatcher(): VerificationMatcher {
  if (!configured) {
    const config = llmConfig();
    configured = config ? llmMatcher(config) : deterministicMatcher;
  }
  return configured;
}
