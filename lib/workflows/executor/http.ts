import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { inngestHosted } from "@/lib/env";
import { hashedSigningKey, sameEndpoint, serveUrl, workflowKeys } from "@/lib/workflows/config";
import { recordServedApp } from "./registry";
import { ingestEvents, type RegisterPayload, registerFunctions } from "./store";

/**
 * The two Inngest server endpoints the SDK calls, served by the app itself in embedded mode:
 * `POST /e/{eventKey}` (inngest.send, step.sendEvent) and `POST /fn/register` (the PUT sync's
 * callback). Both require this deployment's keys, so outsiders can neither inject events nor
 * register functions.
 */

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const eventSchema = z.object({
  id: z.string().max(256).optional(),
  name: z.string().min(1).max(256),
  data: z.record(z.string(), z.unknown()).optional(),
  user: z.record(z.string(), z.unknown()).optional(),
  ts: z.number().optional(),
  v: z.string().optional(),
});

const json = (status: number, body: unknown) => Response.json(body, { status });

/** With Inngest configured the embedded executor is off, and so are its endpoints. */
const disabled = () =>
  json(404, { error: "The embedded executor is disabled: workflows run on Inngest.", status: 404 });

export async function handleEventApi(request: Request, eventKey: string): Promise<Response> {
  if (inngestHosted()) return disabled();
  if (!safeEqual(eventKey, workflowKeys().eventKey)) return json(401, { error: "Event key not found", status: 401 });
  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    return json(400, { error: "Body is not JSON", status: 400 });
  }
  const parsed = z
    .array(eventSchema)
    .max(5000)
    .safeParse(Array.isArray(raw) ? raw : [raw]);
  if (!parsed.success) return json(400, { error: parsed.error.issues[0]?.message ?? "invalid event", status: 400 });
  const ids = await ingestEvents(parsed.data);
  return json(200, { ids, status: 200 });
}

const registerSchema = z.object({
  url: z.url(),
  appName: z.string().min(1),
  functions: z.array(z.object({ id: z.string().min(1) }).passthrough()),
});

/**
 * Why a registration may not be stored, or null: the app's URL and every function's step URL must
 * be this executor's own serve endpoint (origin and path), so nobody can point the executor at
 * another host, even with the signing key.
 */
export function foreignUrlProblem(payload: RegisterPayload, ownServeUrl: string): string | null {
  if (!sameEndpoint(payload.url, ownServeUrl))
    return `The app URL ${payload.url} is not this executor's serve endpoint.`;
  for (const fn of payload.functions) {
    for (const step of Object.values(fn.steps ?? {})) {
      const url = step.runtime?.url;
      if (url !== undefined && !sameEndpoint(url, ownServeUrl))
        return `Function ${fn.id} names a step URL that is not this executor's serve endpoint.`;
    }
  }
  return null;
}

/** Stores a registration for `ownServeUrl` (refused when it names another endpoint). */
export async function acceptRegistration(
  payload: RegisterPayload,
  ownServeUrl: string,
): Promise<{ modified: boolean } | { refused: string }> {
  const problem = foreignUrlProblem(payload, ownServeUrl);
  if (problem) return { refused: problem };
  const result = await registerFunctions(payload);
  recordServedApp(ownServeUrl, payload.appName);
  return result;
}

/**
 * `POST /fn/register`: the SDK's answer to a sync. Requires the hashed signing key as bearer token,
 * and the app's own serve URL (`ownServeUrl`, from configuration) as the registered URL.
 */
export async function handleRegister(request: Request, ownServeUrl: string = serveUrl()): Promise<Response> {
  if (inngestHosted()) return disabled();
  const expected = `Bearer ${hashedSigningKey(workflowKeys().signingKey)}`;
  if (!safeEqual(request.headers.get("authorization") ?? "", expected))
    return json(401, { error: "Unauthorized", status: 401 });
  const parsed = registerSchema.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return json(400, { error: parsed.error.issues[0]?.message ?? "invalid payload", status: 400 });
  const result = await acceptRegistration(parsed.data, ownServeUrl);
  if ("refused" in result) return json(403, { error: result.refused, status: 403 });
  return json(200, { ok: true, modified: result.modified });
}
