import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { inngestHosted } from "@/lib/env";
import { hashedSigningKey, workflowKeys } from "@/lib/workflows/config";
import { ingestEvents, registerFunctions } from "./store";

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
const disabled = () => json(404, { error: "The embedded executor is disabled: workflows run on Inngest.", status: 404 });

export async function handleEventApi(request: Request, eventKey: string): Promise<Response> {
  if (inngestHosted()) return disabled();
  if (!safeEqual(eventKey, workflowKeys().eventKey)) return json(401, { error: "Event key not found", status: 401 });
  let raw: unknown;
  try {
    raw = await request.json();
  } catch {
    return json(400, { error: "Body is not JSON", status: 400 });
  }
  const parsed = z.array(eventSchema).max(5000).safeParse(Array.isArray(raw) ? raw : [raw]);
  if (!parsed.success) return json(400, { error: parsed.error.issues[0]?.message ?? "invalid event", status: 400 });
  const ids = await ingestEvents(parsed.data);
  return json(200, { ids, status: 200 });
}

const registerSchema = z.object({
  url: z.url(),
  appName: z.string().min(1),
  functions: z.array(z.object({ id: z.string().min(1) }).passthrough()),
});

export async function handleRegister(request: Request): Promise<Response> {
  if (inngestHosted()) return disabled();
  const expected = `Bearer ${hashedSigningKey(workflowKeys().signingKey)}`;
  if (!safeEqual(request.headers.get("authorization") ?? "", expected)) return json(401, { error: "Unauthorized", status: 401 });
  const parsed = registerSchema.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return json(400, { error: parsed.error.issues[0]?.message ?? "invalid payload", status: 400 });
  const { modified } = await registerFunctions(parsed.data);
  return json(200, { ok: true, modified });
}
