import { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { ApiError } from "@/lib/core/errors";
import { env } from "@/lib/env";

/**
 * The Slack Web API client (`@slack/web-api`) at `SLACK_API_URL` (the operator's setting, so a
 * loopback fake is allowed). No retries inside a request: a Slack that cannot be reached answers
 * 502 `provider_unavailable`; a delivery is retried by the outbox.
 */
export function slackClient(token?: string): WebClient {
  return new WebClient(token, {
    slackApiUrl: env.SLACK_API_URL,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  });
}

/** Slack's own refusal (`{ok: false, error}`): its error string, or null for any other failure. */
export const slackRefusal = (err: unknown): string | null =>
  err instanceof WebAPIPlatformError ? err.data.error : null;

/** Runs a Slack call; a failure that is not Slack's refusal (unreachable, 5xx, rate limit) is 502 `provider_unavailable`. */
export async function callSlack<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof WebAPIPlatformError) throw err;
    throw new ApiError("provider_unavailable", "Slack could not be reached; try again later.");
  }
}
