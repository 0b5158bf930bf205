import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback fake of the Slack Web API (https://api.slack.com/web), enough for the channel's tests:
 * `POST /api/<method>` with a urlencoded or JSON body, answered `{ok: true, …}` or `{ok: false, error}` as
 * Slack does (HTTP 200 either way; 429 with `Retry-After` when told to). Methods: oauth.v2.access (the
 * client id and secret in the body or as HTTP Basic auth, one-time codes made by `authorizeCode`),
 * auth.test, chat.postMessage, chat.update, reactions.add, reactions.remove, conversations.info.
 * Bot tokens are the ones oauth.v2.access handed out.
 *
 * `signedEvent(secret, body)` signs an Events API request the way Slack does (v0 HMAC-SHA256 over
 * `v0:<timestamp>:<raw body>`, headers `X-Slack-Signature` and `X-Slack-Request-Timestamp`).
 */
export interface SlackCall {
  method: string;
  token: string | null;
  params: Record<string, unknown>;
}

interface App {
  appId: string;
  clientId: string;
  clientSecret: string;
}

interface Installation {
  token: string;
  appId: string;
  team: { id: string; name: string };
  enterprise: { id: string; name: string } | null;
  botUserId: string;
}

export interface SlackFake {
  /** The Web API root to configure as SLACK_API_URL (ends with `/api/`, as @slack/web-api's slackApiUrl). */
  apiUrl: string;
  calls: SlackCall[];
  addApp(app: App): void;
  /** A one-time OAuth code for this app and workspace, as Slack puts on the redirect after the user approves. */
  authorizeCode(
    clientId: string,
    team?: { id: string; name: string },
    enterprise?: { id: string; name: string },
  ): string;
  failNext(method: string, error: string | { status: 429; retryAfter: number }): void;
  close(): Promise<void>;
}

export function signSlack(
  signingSecret: string,
  rawBody: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
  return {
    "content-type": "application/json",
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": signature,
  };
}

export async function startSlackFake(): Promise<SlackFake> {
  const apps = new Map<string, App>();
  const codes = new Map<
    string,
    { clientId: string; team: Installation["team"]; enterprise: Installation["enterprise"] }
  >();
  const installations = new Map<string, Installation>();
  const failures = new Map<string, string | { status: 429; retryAfter: number }>();
  const calls: SlackCall[] = [];
  let counter = 1;
  let ts = Math.floor(Date.now() / 1000);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { status, body, headers } = handle(req, Buffer.concat(chunks).toString());
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    });
  });

  function parse(req: http.IncomingMessage, raw: string): Record<string, unknown> {
    const type = req.headers["content-type"] ?? "";
    if (!raw) return {};
    if (type.startsWith("application/json")) return JSON.parse(raw) as Record<string, unknown>;
    const params: Record<string, unknown> = Object.fromEntries(new URLSearchParams(raw));
    // @slack/web-api sends arrays and objects (blocks, attachments) as JSON strings in a form body
    for (const k of ["blocks", "attachments", "metadata"])
      if (typeof params[k] === "string") params[k] = JSON.parse(params[k]);
    return params;
  }

  function handle(
    req: http.IncomingMessage,
    raw: string,
  ): { status: number; body: unknown; headers?: Record<string, string> } {
    const m = /^\/api\/([\w.]+)/.exec(new URL(req.url ?? "/", "http://fake").pathname);
    if (!m) return { status: 404, body: { ok: false, error: "unknown_method" } };
    const method = m[1] ?? "";
    const params = parse(req, raw);
    const auth = req.headers.authorization ?? "";
    const bearer = auth.startsWith("Bearer ") ? auth.slice(7) : typeof params.token === "string" ? params.token : null;
    calls.push({ method, token: bearer, params });
    const failure = failures.get(method);
    if (failure) {
      failures.delete(method);
      if (typeof failure === "string") return { status: 200, body: { ok: false, error: failure } };
      return {
        status: 429,
        body: { ok: false, error: "ratelimited" },
        headers: { "retry-after": String(failure.retryAfter) },
      };
    }
    const ok = (rest: Record<string, unknown> = {}) => ({ status: 200, body: { ok: true, ...rest } });
    const err = (error: string) => ({ status: 200, body: { ok: false, error } });

    if (method === "oauth.v2.access") {
      let clientId = params.client_id as string | undefined;
      let clientSecret = params.client_secret as string | undefined;
      if (auth.startsWith("Basic ")) {
        const [id, secret] = Buffer.from(auth.slice(6), "base64").toString().split(":");
        clientId = id;
        clientSecret = secret;
      }
      const app = clientId ? apps.get(clientId) : undefined;
      if (!app || app.clientSecret !== clientSecret) return err("invalid_client_id");
      const code = codes.get(String(params.code));
      if (!code || code.clientId !== clientId) return err("invalid_code");
      codes.delete(String(params.code));
      const installation: Installation = {
        token: `xoxb-fake-${counter++}`,
        appId: app.appId,
        team: code.team,
        enterprise: code.enterprise,
        botUserId: `UBOT${counter}`,
      };
      installations.set(installation.token, installation);
      return ok({
        access_token: installation.token,
        token_type: "bot",
        scope: "app_mentions:read,chat:write,im:history,channels:history,reactions:write",
        bot_user_id: installation.botUserId,
        app_id: app.appId,
        team: installation.team,
        enterprise: installation.enterprise,
        is_enterprise_install: installation.enterprise !== null,
        authed_user: { id: "UINSTALLER" },
      });
    }

    const installation = bearer ? installations.get(bearer) : undefined;
    if (!installation) return err(bearer ? "invalid_auth" : "not_authed");
    switch (method) {
      case "auth.test":
        return ok({
          url: `https://${installation.team.name}.slack.com/`,
          team: installation.team.name,
          team_id: installation.team.id,
          user_id: installation.botUserId,
          bot_id: `B${installation.botUserId}`,
        });
      case "chat.postMessage": {
        if (!params.channel) return err("channel_not_found");
        if (!params.text && !params.blocks) return err("no_text");
        const messageTs = `${ts++}.${String(counter++).padStart(6, "0")}`;
        return ok({
          channel: params.channel,
          ts: messageTs,
          message: {
            type: "message",
            text: params.text,
            user: installation.botUserId,
            ts: messageTs,
            ...(params.thread_ts ? { thread_ts: params.thread_ts } : {}),
          },
        });
      }
      case "chat.update":
        if (!params.channel || !params.ts) return err("message_not_found");
        return ok({ channel: params.channel, ts: params.ts, text: params.text });
      case "reactions.add":
      case "reactions.remove":
        if (!params.channel || !params.timestamp || !params.name) return err("invalid_arguments");
        return ok();
      case "conversations.info":
        return ok({ channel: { id: params.channel, name: "general", is_im: String(params.channel).startsWith("D") } });
      default:
        return { status: 200, body: { ok: false, error: "unknown_method" } };
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    addApp(app) {
      apps.set(app.clientId, app);
    },
    authorizeCode(clientId, team = { id: "T0001", name: "acme" }, enterprise) {
      const code = `code-${counter++}`;
      codes.set(code, { clientId, team, enterprise: enterprise ?? null });
      return code;
    },
    failNext(method, error) {
      failures.set(method, error);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
