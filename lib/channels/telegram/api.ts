import http from "node:http";
import https from "node:https";
import { Api, GrammyError, HttpError, type Transformer } from "grammy";
import { ApiError, invalidRequest } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { RetryLater } from "../port";

/**
 * Calls that change nothing when made twice. One of them that finds its connection gone before an
 * answer (a kept-alive socket the server closed as it was reused) is made once more on a fresh one;
 * a send is never repeated this way (Telegram may have taken it), its delivery is retried instead.
 */
const IDEMPOTENT = new Set(["getMe", "getWebhookInfo", "setWebhook", "deleteWebhook", "getChat", "getFile"]);
const retryIdempotent: Transformer = async (prev, method, payload, signal) => {
  try {
    return await prev(method, payload, signal);
  } catch (err) {
    if (!(err instanceof HttpError) || !IDEMPOTENT.has(method) || signal?.aborted) throw err;
    return prev(method, payload, signal);
  }
};

/**
 * Kept-alive sockets with a timeout, so that Node's agent honours a server's `Keep-Alive: timeout=`
 * hint (it ignores the hint when the agent has no timeout of its own, grammY's default) and drops
 * an idle socket before the server does.
 */
const agents = new Map<string, http.Agent>();
function agentFor(apiRoot: string): http.Agent {
  let agent = agents.get(apiRoot);
  if (!agent) {
    const options = { keepAlive: true, timeout: 30_000 };
    agent = apiRoot.startsWith("https:") ? new https.Agent(options) : new http.Agent(options);
    agents.set(apiRoot, agent);
  }
  return agent;
}

/**
 * The Telegram Bot API client (grammY) for one bot, on the operator's `TELEGRAM_API_ROOT`. The
 * token is in the request path only: grammY's errors never carry it (`sensitiveLogs` stays off),
 * and nothing here logs it.
 */
export function botApi(token: string): Api {
  const api = new Api(token, {
    apiRoot: env.TELEGRAM_API_ROOT,
    timeoutSeconds: 15,
    canUseWebhookReply: () => false,
    baseFetchConfig: { agent: agentFor(env.TELEGRAM_API_ROOT) },
  });
  api.config.use(retryIdempotent);
  return api;
}

/** Telegram's own words for a failed call, without anything of the request. */
export const describe = (err: unknown): string =>
  err instanceof GrammyError
    ? `${err.method}: ${err.error_code} ${err.description}`
    : err instanceof HttpError
      ? `the Telegram Bot API could not be reached (${err.message})`
      : err instanceof Error
        ? err.message
        : String(err);

/**
 * A failed call made for a caller's request, as the API's error: a token Telegram refuses is 400
 * naming `param`; an API that cannot be reached or fails on its side is 502 `provider_unavailable`.
 */
export function requestError(err: unknown, param: string): ApiError {
  if (err instanceof GrammyError && (err.error_code === 401 || err.error_code === 404))
    return invalidRequest("Telegram refused this bot token (getMe answered Unauthorized).", param);
  if (err instanceof GrammyError && err.error_code === 400)
    return invalidRequest(`Telegram refused the request: ${err.description}`, null);
  return new ApiError("provider_unavailable", `The Telegram Bot API is unavailable: ${describe(err)}.`, null);
}

/**
 * A failed call made by a delivery, for the outbox: Telegram's 429 asks for a later call after
 * `retry_after` seconds (and an unreachable API is retried too); anything else fails the message.
 */
export function deliveryError(err: unknown): Error {
  if (err instanceof GrammyError && err.error_code === 429) {
    const seconds = err.parameters?.retry_after ?? 1;
    return new RetryLater(seconds * 1000, `telegram: 429 Too Many Requests, retry after ${seconds}s`);
  }
  if (err instanceof HttpError || (err instanceof GrammyError && err.error_code >= 500))
    return new RetryLater(5_000, `telegram: ${describe(err)}`);
  return new Error(`telegram: ${describe(err)}`);
}
