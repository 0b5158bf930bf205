import type { LlmConfig } from "@/lib/waits/llm";
import { coerce, type ExtractSource, type FlatSchema, toJsonSchema } from "./extract";

/**
 * LLM extraction for schema inboxes (when `LLM_BASE_URL` is set): the model is asked for the
 * schema's fields as JSON (response format: the compiled JSON Schema, every field nullable); its
 * answer is coerced like the default extractor's and then validated by ajv like any extraction —
 * nothing of it is used unvalidated. Throws when the call or its answer fails (`extractionStatus`
 * `error`).
 */
export async function llmExtract(
  config: LlmConfig,
  schema: FlatSchema,
  hint: string | null,
  source: ExtractSource,
): Promise<Record<string, unknown>> {
  const json = toJsonSchema(schema) as { properties: Record<string, Record<string, unknown>> };
  const properties = Object.fromEntries(
    Object.entries(json.properties).map(([k, v]) => [k, { anyOf: [v, { type: "null" }] }]),
  );
  const res = await fetch(`${config.baseUrl.replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: config.model,
      temperature: 0,
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "extraction",
          strict: true,
          schema: { type: "object", additionalProperties: false, required: Object.keys(properties), properties },
        },
      },
      messages: [
        {
          role: "system",
          content:
            "Extract the fields of the JSON schema from the message. Use null for a field the message does not state; never guess." +
            (hint ? ` Context: ${hint}` : ""),
        },
        {
          role: "user",
          content: JSON.stringify({
            text: source.text?.slice(0, 20_000) ?? null,
            html: source.text ? null : (source.html?.slice(0, 40_000) ?? null),
            attachments: source.files
              .filter((f) => f.contentType === "application/json" || f.contentType.startsWith("text/"))
              .map((f) => ({ filename: f.filename, content: f.content.toString("utf8").slice(0, 20_000) })),
          }),
        },
      ],
    }),
    signal: AbortSignal.timeout(config.timeoutMs),
  });
  if (!res.ok) throw new Error(`LLM answered ${res.status}`);
  const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = body.choices?.[0]?.message?.content;
  const parsed: unknown = JSON.parse(typeof content === "string" ? content : "");
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("LLM answer is not an object");
  const present = Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== null));
  return coerce(schema, present);
}
