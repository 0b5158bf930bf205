import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type FormParams, formParams, twilioSignature } from "@/lib/providers/telephony/signature";

/**
 * A loopback fake of Twilio's 2010-04-01 REST API (https://www.twilio.com/docs/usage/api), enough for
 * the telephony adapter: every request under `/2010-04-01/Accounts/{AccountSid}` must carry HTTP basic
 * auth `AccountSid:AuthToken` (else 401 `{code: 20003, message: "Authenticate"}`, as Twilio answers);
 * form-encoded POST bodies; JSON answers with Twilio's snake_case fields and SIDs (`PN…`, `SM…`, `CA…`).
 * Resources: the account (`.json`: `type` Full or Trial), `AvailablePhoneNumbers/{Country}/{Type}.json`
 * (`Contains`), `IncomingPhoneNumbers.json` (buy), `IncomingPhoneNumbers/{Sid}.json` (DELETE),
 * `Messages.json`, `Calls.json`. Its inventory is fictional: US Local `+1415555 0100–0119`, US TollFree
 * `+1800555 0100–0109`; US Mobile is 404 as on Twilio.
 *
 * `callback(url, params)` posts a status callback to the service the way Twilio does, signed with
 * `X-Twilio-Signature` (HMAC-SHA1 with the auth token over the URL and the sorted parameters).
 */
export interface TwilioRequest {
  method: string;
  /** The path below `/2010-04-01/Accounts/{AccountSid}` (e.g. `/Messages.json`). */
  path: string;
  query: Record<string, string>;
  form: FormParams;
}

export interface TwilioFake {
  /** The API root to configure as TWILIO_API_URL. */
  url: string;
  accountSid: string;
  authToken: string;
  requests: TwilioRequest[];
  /** The account's `type`: `Trial` accounts are not verified (numbers shown masked, not purchasable). */
  accountType: "Full" | "Trial";
  /** Calls placed (`Calls.json`), with the CallSid answered. */
  placedCalls: { sid: string; form: FormParams }[];
  /** Live calls updated (`Calls/{Sid}.json`: an inbound call answered with TwiML). */
  updatedCalls: { sid: string; form: FormParams }[];
  /** Numbers bought and not released: phone number → its IncomingPhoneNumber (with the callback URLs given). */
  owned: Map<string, { sid: string; form: FormParams }>;
  /** Makes the next request whose path ends with `suffix` answer `status` with a Twilio error body. */
  failNext(suffix: string, status: number, code: number, message: string): void;
  /** Posts a form callback to `url` as Twilio does, signed with the auth token (or `opts.token`, or `opts.signature`). */
  callback(url: string, params: FormParams, opts?: { token?: string; signature?: string }): Promise<number>;
  /** `callback` with the reply read as Twilio reads a voice webhook's: its status, media type and text (TwiML). */
  webhook(
    url: string,
    params: FormParams,
    opts?: { token?: string; signature?: string },
  ): Promise<{ status: number; contentType: string | null; text: string }>;
  close(): Promise<void>;
}

const sid = (prefix: string) => prefix + randomBytes(16).toString("hex");

const range = (prefix: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(from + i).padStart(4, "0")}`);

const INVENTORY: Record<
  string,
  Record<string, { numbers: string[]; locality: string | null; region: string | null }>
> = {
  US: {
    Local: { numbers: range("+1415555", 100, 20), locality: "San Francisco", region: "CA" },
    TollFree: { numbers: range("+1800555", 100, 10), locality: null, region: null },
  },
};

export async function startTwilioFake(): Promise<TwilioFake> {
  const accountSid = sid("AC");
  const authToken = randomBytes(16).toString("hex");
  const failures = new Map<string, { status: number; code: number; message: string }>();
  const fake: TwilioFake = {
    url: "",
    accountSid,
    authToken,
    requests: [],
    accountType: "Full",
    owned: new Map(),
    placedCalls: [],
    updatedCalls: [],
    failNext(suffix, status, code, message) {
      failures.set(suffix, { status, code, message });
    },
    async callback(url, params, opts = {}) {
      return (await fake.webhook(url, params, opts)).status;
    },
    async webhook(url, params, opts = {}) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "X-Twilio-Signature": opts.signature ?? twilioSignature(opts.token ?? authToken, url, params),
        },
        body: body.toString(),
      });
      return { status: res.status, contentType: res.headers.get("content-type"), text: await res.text() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const error = (res: http.ServerResponse, status: number, code: number, message: string) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", "http://fake");
      const prefix = `/2010-04-01/Accounts/${accountSid}`;
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
      if (req.headers.authorization !== expected || !u.pathname.startsWith(prefix))
        return error(res, 401, 20003, "Authenticate");
      const path = u.pathname.slice(prefix.length);
      const method = req.method ?? "GET";
      const type = req.headers["content-type"] ?? "";
      if (method === "POST" && !type.startsWith("application/x-www-form-urlencoded"))
        return error(res, 400, 20001, "Expected a form-encoded body");
      const form = method === "POST" ? formParams(Buffer.concat(chunks).toString("utf8")) : {};
      fake.requests.push({ method, path, query: Object.fromEntries(u.searchParams), form });
      for (const [suffix, f] of failures)
        if (path.endsWith(suffix)) {
          failures.delete(suffix);
          return error(res, f.status, f.code, f.message);
        }
      const one = (name: string) => {
        const v = form[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const now = new Date().toUTCString();

      if (method === "GET" && path === ".json")
        return json(res, 200, { sid: accountSid, type: fake.accountType, status: "active", friendly_name: "fake" });

      const avail = /^\/AvailablePhoneNumbers\/([A-Z]{2})\/(Local|Mobile|TollFree|National)\.json$/.exec(path);
      if (method === "GET" && avail) {
        const offer = INVENTORY[avail[1] ?? ""]?.[avail[2] ?? ""];
        if (!offer) return error(res, 404, 20404, `The requested resource ${u.pathname} was not found`);
        const contains = u.searchParams.get("Contains") ?? "";
        const page = Number(u.searchParams.get("PageSize") ?? "50");
        const numbers = offer.numbers
          .filter((n) => !fake.owned.has(n) && n.slice(1).includes(contains.replace(/^\+/, "")))
          .slice(0, page);
        return json(res, 200, {
          uri: u.pathname + u.search,
          available_phone_numbers: numbers.map((n) => ({
            friendly_name: n,
            phone_number: n,
            locality: offer.locality,
            region: offer.region,
            iso_country: avail[1],
            address_requirements: "none",
            beta: false,
            capabilities: { voice: true, SMS: true, MMS: false, fax: false },
          })),
        });
      }

      if (method === "POST" && path === "/IncomingPhoneNumbers.json") {
        const n = one("PhoneNumber") ?? "";
        const known = Object.values(INVENTORY).some((c) => Object.values(c).some((r) => r.numbers.includes(n)));
        if (!known || fake.owned.has(n)) return error(res, 400, 21422, `PhoneNumber ${n} is not available.`);
        if (fake.accountType === "Trial" && fake.owned.size > 0)
          return error(
            res,
            400,
            21404,
            "Trial accounts are allowed only one Twilio number. To purchase additional numbers, please upgrade your account.",
          );
        const pn = sid("PN");
        fake.owned.set(n, { sid: pn, form });
        return json(res, 201, {
          sid: pn,
          account_sid: accountSid,
          phone_number: n,
          friendly_name: n,
          sms_url: one("SmsUrl") ?? null,
          voice_url: one("VoiceUrl") ?? null,
          status_callback: one("StatusCallback") ?? null,
          status: "in-use",
          date_created: now,
          api_version: "2010-04-01",
        });
      }

      const incoming = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(path);
      if (method === "DELETE" && incoming) {
        const entry = [...fake.owned].find(([, o]) => o.sid === incoming[1]);
        if (!entry) return error(res, 404, 20404, `The requested resource ${u.pathname} was not found`);
        fake.owned.delete(entry[0]);
        res.writeHead(204);
        return res.end();
      }

      if (method === "POST" && path === "/Messages.json") {
        const to = one("To");
        const from = one("From");
        if (!to || !/^\+\d{6,15}$/.test(to))
          return error(res, 400, 21211, `The 'To' number ${to ?? ""} is not a valid phone number.`);
        if (!from || !fake.owned.has(from))
          return error(
            res,
            400,
            21606,
            `The From phone number ${from ?? ""} is not a valid, SMS-capable inbound phone number or short code for your account.`,
          );
        return json(res, 201, {
          sid: sid("SM"),
          account_sid: accountSid,
          to,
          from,
          body: one("Body") ?? "",
          status: "queued",
          num_segments: "1",
          direction: "outbound-api",
          error_code: null,
          error_message: null,
          date_created: now,
          api_version: "2010-04-01",
        });
      }

      if (method === "POST" && path === "/Calls.json") {
        const to = one("To");
        const from = one("From");
        if (!to || !from) return error(res, 400, 21201, "No 'To' number is specified");
        if (!one("Url") && !one("Twiml")) return error(res, 400, 21205, "Url or Twiml is required");
        const callSid = sid("CA");
        fake.placedCalls.push({ sid: callSid, form });
        return json(res, 201, {
          sid: callSid,
          account_sid: accountSid,
          to,
          from,
          status: "queued",
          direction: "outbound-api",
          date_created: now,
          api_version: "2010-04-01",
        });
      }

      const update = /^\/Calls\/(CA[0-9a-f]+)\.json$/.exec(path);
      if (method === "POST" && update) {
        fake.updatedCalls.push({ sid: update[1] ?? "", form });
        return json(res, 200, {
          sid: update[1],
          account_sid: accountSid,
          status: "in-progress",
          api_version: "2010-04-01",
        });
      }

      return error(res, 404, 20404, `The requested resource ${u.pathname} was not found`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
