import { timingSafeEqual } from "node:crypto";

/**
 * The SDK's checkpointing protocol, served in-process for the embedded executor.
 *
 * Given `ctx.fn_id` and `ctx.qi_id` in a call that names no step (`stepId=step`), the `inngest` v4
 * SDK runs the function in its "async checkpointing" step mode: it runs each new step at once, in
 * the same call, and posts the step's result to `POST /v1/checkpoint/{runId}/async` on the
 * client's base URL before it goes on with the next one (node_modules/inngest:
 * components/InngestFunction.js `shouldAsyncCheckpoint`, components/execution/engine.js
 * `checkpoint` and the `AsyncCheckpointing` handlers, api/api.js `checkpointStepsAsync`). A
 * three-step run is then one call to `serve()` and three checkpoints instead of four calls.
 *
 * The embedded Inngest client gets `checkpointFetch` as its `fetch`: a checkpoint posted to its own
 * base URL is answered here, in the same process, by the executor's worker that is driving the
 * run (`openCheckpoint`), which records the steps against the run's lease before it answers; every
 * other request goes to the network as before. Answers: 200 recorded; 409 the call is stale (the
 * lease was lost, the run was cancelled, or the call already ended: the SDK stops the run's
 * execution); 422 an operation the executor does not record from a checkpoint (the SDK then
 * returns the steps in its answer instead); 401 without the deployment's hashed signing key.
 */

export interface CheckpointOp {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  data?: unknown;
  error?: unknown;
  opts?: Record<string, unknown>;
}

export type CheckpointResult = "recorded" | "stale" | "unsupported";

interface OpenCall {
  /** The `qi_id` the executor put in the call's context: a checkpoint must carry it. */
  token: string;
  record(ops: CheckpointOp[]): Promise<CheckpointResult>;
}

/** Kept on `globalThis`: the route bundles and server.ts load this module as separate instances. */
const KEY = Symbol.for("svc.workflows.checkpoints");
type Holder = { [KEY]?: Map<string, OpenCall> };

function open(): Map<string, OpenCall> {
  const holder = globalThis as Holder;
  holder[KEY] ??= new Map();
  return holder[KEY];
}

/**
 * Opens the checkpoints of one call to `serve()` for run `runId`; the returned function closes
 * them (a checkpoint that arrives after that is stale).
 */
export function openCheckpoint(runId: string, token: string, record: OpenCall["record"]): () => void {
  const calls = open();
  const call: OpenCall = { token, record };
  calls.set(runId, call);
  return () => {
    if (calls.get(runId) === call) calls.delete(runId);
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const answer = (status: number, body: unknown = {}) => Response.json(body, { status });

const PATH = /^\/v1\/checkpoint\/([^/]+)\/async$/;

/**
 * Handles one checkpoint: `authorization` is the request's header, `expected` the bearer token
 * the SDK sends (the hashed signing key), `body` the JSON the SDK posted
 * (`{run_id, fn_id, qi_id, steps, ...}`).
 */
export async function handleCheckpoint(
  runId: string,
  authorization: string | null,
  expected: string,
  body: string,
): Promise<Response> {
  if (!safeEqual(authorization ?? "", expected)) return answer(401, { error: "Unauthorized", status: 401 });
  let parsed: { run_id?: unknown; qi_id?: unknown; steps?: unknown };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return answer(400, { error: "Body is not JSON", status: 400 });
  }
  if (parsed.run_id !== runId || !Array.isArray(parsed.steps))
    return answer(400, { error: "A checkpoint names its run and carries steps", status: 400 });
  const ops = parsed.steps as unknown[];
  if (!ops.every((s) => s && typeof s === "object" && typeof (s as CheckpointOp).id === "string"))
    return answer(400, { error: "Every step has an id", status: 400 });
  const call = open().get(runId);
  if (!call || typeof parsed.qi_id !== "string" || !safeEqual(parsed.qi_id, call.token))
    return answer(409, { error: "No call of this run is under way here", status: 409 });
  const result = await call.record(ops as CheckpointOp[]);
  if (result === "stale") return answer(409, { error: "The run's lease is gone", status: 409 });
  if (result === "unsupported")
    return answer(422, { error: "The embedded executor records only completed steps from a checkpoint", status: 422 });
  return answer(200);
}

/**
 * The embedded client's `fetch`: `POST {baseUrl}v1/checkpoint/{runId}/async` is answered in this
 * process (`handleCheckpoint`); anything else goes to `globalThis.fetch`. `bearer` is the
 * `Authorization` value the SDK sends with its key (`Bearer ` + the hashed signing key).
 */
export function checkpointFetch(baseUrl: string, bearer: string): typeof fetch {
  const base = new URL(baseUrl);
  const local: typeof fetch = async (input, init) => {
    const url = input instanceof URL ? input : new URL(typeof input === "string" ? input : input.url);
    const match =
      url.origin === base.origin && (init?.method ?? "GET").toUpperCase() === "POST" && PATH.exec(url.pathname);
    if (!match || input instanceof Request) return globalThis.fetch(input, init);
    const body = typeof init?.body === "string" ? init.body : await new Response(init?.body ?? null).text();
    const authorization = new Headers(init?.headers).get("authorization");
    return handleCheckpoint(decodeURIComponent(match[1] ?? ""), authorization, bearer, body);
  };
  return local;
}
