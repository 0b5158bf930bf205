import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback fake of the Telegram Bot API (https://core.telegram.org/bots/api), enough for the channel's
 * tests: `POST|GET /bot<token>/<method>` with a JSON, urlencoded or multipart body, answered in the Bot API's
 * envelope (`{ok: true, result}` or `{ok: false, error_code, description, parameters?}`). Methods:
 * getMe, setWebhook, deleteWebhook, getWebhookInfo, sendMessage, editMessageText, setMessageReaction,
 * sendVoice, answerCallbackQuery. A token the fake does not know is 401 "Unauthorized", as Telegram answers.
 *
 * `update(token, body)` posts an update to the webhook the service registered, with its
 * `X-Telegram-Bot-Api-Secret-Token`, as Telegram does; `failNext` makes the next call of a method fail
 * (e.g. 429 with `retry_after`).
 */
export interface TelegramCall {
  token: string;
  method: string;
  params: Record<string, unknown>;
  /** sendVoice: the uploaded file's bytes and content type. */
  file?: { name: string; type: string; bytes: Buffer };
}

interface Bot {
  id: number;
  username: string;
  firstName: string;
  webhook: { url: string; secretToken?: string; allowedUpdates?: string[] } | null;
  nextMessageId: number;
}

export interface TelegramFake {
  /** The API root to configure as TELEGRAM_API_ROOT (no trailing slash). */
  root: string;
  calls: TelegramCall[];
  /** Registers a bot token the fake accepts; returns the bot's id (the token's `<id>:` prefix when numeric) and username. */
  addBot(token: string, username?: string): { id: number; username: string };
  webhookOf(token: string): Bot["webhook"];
  failNext(method: string, error: { error_code: number; description: string; retry_after?: number }): void;
  /** The next call of `method` finds its connection reset with no answer (as a reused keep-alive socket the server just closed). */
  dropNext(method: string): void;
  /** Posts an update to the bot's webhook the way Telegram does; returns the webhook's HTTP status. */
  update(token: string, update: Record<string, unknown>, opts?: { secretToken?: string | null }): Promise<number>;
  close(): Promise<void>;
}

/**
 * The parts of a multipart/form-data body, read the way Telegram's server does: grammY writes its
 * part headers without a space after the colon and file names unquoted (`filename=voice.ogg`),
 * which WHATWG FormData parsing refuses. A file is sent as `voice=attach://<name>` plus a part `<name>`.
 */
function multipart(raw: Buffer, type: string) {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
  const delimiter = Buffer.from(`--${boundary?.[1] ?? boundary?.[2] ?? ""}`);
  const parts: { name: string; filename: string | null; type: string; body: Buffer }[] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === "--") break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    const chunk = raw.subarray(start + 2, next - 2); // after the CRLF, before the CRLF of the next delimiter
    const split = chunk.indexOf("\r\n\r\n");
    const head = chunk.subarray(0, split).toString("utf8");
    const disposition = /content-disposition:\s*form-data(.*)/i.exec(head)?.[1] ?? "";
    const param = (key: string) => new RegExp(`;\\s*${key}=(?:"([^"]*)"|([^;\\r\\n]*))`, "i").exec(disposition);
    const name = param("name");
    const filename = param("filename");
    parts.push({
      name: name?.[1] ?? name?.[2] ?? "",
      filename: filename ? (filename[1] ?? filename[2] ?? "") : null,
      type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? "application/octet-stream",
      body: Buffer.from(chunk.subarray(split + 4)),
    });
    at = next;
  }
  return parts;
}

/** `port`: a fixed loopback port (the end-to-end server is configured with it before the fake starts); default any free one. */
export async function startTelegramFake(port = 0): Promise<TelegramFake> {
  const bots = new Map<string, Bot>();
  const failures = new Map<string, { error_code: number; description: string; retry_after?: number }>();
  const calls: TelegramCall[] = [];
  const drops = new Set<string>();
  let nextBotId = 7_000_000_001;
  let nextUpdateId = 1;

  const server = http.createServer((req, res) => {
    const dropped = /^\/bot[^/]+\/(\w+)/.exec(req.url ?? "")?.[1];
    if (dropped && drops.delete(dropped)) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, Buffer.concat(chunks)).then(
        ({ status, body }) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        },
        (err: unknown) => {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ ok: false, error_code: 500, description: String(err) }));
        },
      );
    });
  });

  async function parse(req: http.IncomingMessage, raw: Buffer): Promise<Pick<TelegramCall, "params" | "file">> {
    const type = req.headers["content-type"] ?? "";
    const url = new URL(req.url ?? "/", "http://fake");
    const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    if (!raw.length) return { params };
    if (type.startsWith("application/json"))
      return { params: { ...params, ...(JSON.parse(raw.toString()) as object) } };
    if (type.startsWith("application/x-www-form-urlencoded"))
      return { params: { ...params, ...Object.fromEntries(new URLSearchParams(raw.toString())) } };
    if (type.startsWith("multipart/form-data")) {
      let file: TelegramCall["file"];
      for (const part of multipart(raw, type)) {
        if (part.filename === null) params[part.name] = part.body.toString("utf8");
        else file = { name: part.filename, type: part.type, bytes: part.body };
      }
      // grammy sends objects in multipart as JSON strings
      for (const k of ["reply_markup", "reaction"])
        if (typeof params[k] === "string") params[k] = JSON.parse(params[k]);
      return { params, file };
    }
    return { params };
  }

  function message(bot: Bot, chatId: unknown, extra: Record<string, unknown>) {
    return {
      message_id: bot.nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: Number(chatId), type: Number(chatId) < 0 ? "group" : "private" },
      from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
      ...extra,
    };
  }

  async function handle(req: http.IncomingMessage, raw: Buffer): Promise<{ status: number; body: unknown }> {
    const m = /^\/bot([^/]+)\/(\w+)/.exec(new URL(req.url ?? "/", "http://fake").pathname);
    if (!m) return { status: 404, body: { ok: false, error_code: 404, description: "Not Found" } };
    const token = decodeURIComponent(m[1] ?? "");
    const method = m[2] ?? "";
    const bot = bots.get(token);
    if (!bot) return { status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } };
    const { params, file } = await parse(req, raw);
    calls.push({ token, method, params, file });
    const failure = failures.get(method);
    if (failure) {
      failures.delete(method);
      const { retry_after, ...rest } = failure;
      return {
        status: failure.error_code,
        body: { ok: false, ...rest, ...(retry_after !== undefined ? { parameters: { retry_after } } : {}) },
      };
    }
    const ok = (result: unknown) => ({ status: 200, body: { ok: true, result } });
    const bad = (description: string) => ({ status: 400, body: { ok: false, error_code: 400, description } });
    switch (method) {
      case "getMe":
        return ok({ id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username });
      case "setWebhook": {
        if (typeof params.url !== "string") return bad("Bad Request: bad webhook: URL must be provided");
        const allowed = params.allowed_updates;
        bot.webhook = {
          url: params.url,
          secretToken: typeof params.secret_token === "string" ? params.secret_token : undefined,
          allowedUpdates: typeof allowed === "string" ? (JSON.parse(allowed) as string[]) : (allowed as string[]),
        };
        return ok(true);
      }
      case "deleteWebhook":
        bot.webhook = null;
        return ok(true);
      case "getWebhookInfo":
        return ok({ url: bot.webhook?.url ?? "", has_custom_certificate: false, pending_update_count: 0 });
      case "sendMessage":
        if (!params.chat_id) return bad("Bad Request: chat_id is empty");
        if (typeof params.text !== "string" || !params.text) return bad("Bad Request: message text is empty");
        return ok(
          message(bot, params.chat_id, {
            text: params.text,
            ...(params.reply_markup ? { reply_markup: params.reply_markup } : {}),
          }),
        );
      case "editMessageText":
        if (!params.chat_id || !params.message_id) return bad("Bad Request: message to edit not found");
        return ok({
          ...message(bot, params.chat_id, { text: params.text, edit_date: Math.floor(Date.now() / 1000) }),
          message_id: Number(params.message_id),
        });
      case "setMessageReaction":
        if (!params.chat_id || !params.message_id) return bad("Bad Request: message to react not found");
        return ok(true);
      case "sendVoice":
        if (!params.chat_id) return bad("Bad Request: chat_id is empty");
        if (!file && typeof params.voice !== "string") return bad("Bad Request: there is no voice in the request");
        return ok(
          message(bot, params.chat_id, {
            voice: { file_id: `voice-${bot.nextMessageId}`, duration: 1, mime_type: file?.type ?? "audio/ogg" },
          }),
        );
      case "answerCallbackQuery":
        if (!params.callback_query_id) return bad("Bad Request: query is too old or query ID is invalid");
        return ok(true);
      default:
        return { status: 404, body: { ok: false, error_code: 404, description: "Not Found: method not found" } };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const bound = (server.address() as AddressInfo).port;

  return {
    root: `http://127.0.0.1:${bound}`,
    calls,
    addBot(token, username) {
      // As Telegram's tokens are: `<bot id>:<secret>`; the id is the token's when it has one.
      const own = /^(\d{1,15}):/.exec(token)?.[1];
      const id = own ? Number(own) : nextBotId++;
      const bot: Bot = {
        id,
        username: username ?? `test_${id}_bot`,
        firstName: "Test bot",
        webhook: null,
        nextMessageId: 1,
      };
      bots.set(token, bot);
      return { id: bot.id, username: bot.username };
    },
    webhookOf: (token) => bots.get(token)?.webhook ?? null,
    failNext(method, error) {
      failures.set(method, error);
    },
    dropNext(method) {
      drops.add(method);
    },
    async update(token, update, opts = {}) {
      const hook = bots.get(token)?.webhook;
      if (!hook) throw new Error("no webhook is set for this bot");
      const secret = opts.secretToken === undefined ? hook.secretToken : opts.secretToken;
      const res = await fetch(hook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}),
        },
        body: JSON.stringify({ update_id: nextUpdateId++, ...update }),
      });
      await res.arrayBuffer();
      return res.status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
