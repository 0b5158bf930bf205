import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { lobSignature } from "@/lib/providers/print/lob";

/**
 * A loopback fake of Lob's v1 letters API (https://docs.lob.com/#tag/Letters), enough for the print
 * adapter: every request needs HTTP basic auth with the API key as the user name (else 401
 * `{error: {message, status_code: 401}}`, as Lob answers); `POST /v1/letters` takes a multipart
 * body (`to[...]`, `from[...]`, `file` — a PDF, `color`, `double_sided`, `address_placement`,
 * `metadata[...]`), answers a letter object with an `ltr_` id, and with a repeated
 * `Idempotency-Key` answers the letter it made the first time; `DELETE /v1/letters/{id}` cancels
 * (`{id, deleted: true}`). `faults` queues answers for the next `POST /v1/letters` calls, one
 * each: an HTTP error (`{status, message}`, Lob's error body) or `"network"` (the connection is
 * dropped without an answer).
 *
 * `event(letter, type)` builds a webhook delivery the way Lob posts it: an event object
 * (`evt_…`, `event_type.id`, `body` = the letter, `reference_id`) with `Lob-Signature` (hex
 * HMAC-SHA256 of `${timestamp}.${raw body}` with the webhook secret) and `Lob-Signature-Timestamp`.
 */
export interface LobLetter {
  id: string;
  fields: Record<string, string>;
  pdf: Buffer;
  deleted: boolean;
}

export interface LobFake {
  /** The API root to configure as LOB_API_URL. */
  url: string;
  apiKey: string;
  webhookSecret: string;
  letters: Map<string, LobLetter>;
  faults: ({ status: number; message: string } | "network")[];
  event(
    letterId: string,
    type: string,
    opts?: { timestamp?: number; eventId?: string },
  ): { rawBody: string; headers: Record<string, string>; eventId: string };
  close(): Promise<void>;
}

const lobId = (prefix: string) => `${prefix}_${randomBytes(8).toString("hex")}`;

export async function startLobFake(): Promise<LobFake> {
  const apiKey = `test_${randomBytes(12).toString("hex")}`;
  const webhookSecret = randomBytes(16).toString("hex");
  const letters = new Map<string, LobLetter>();
  const byIdempotencyKey = new Map<string, string>();
  const faults: LobFake["faults"] = [];

  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const letterObject = (l: LobLetter) => ({
    id: l.id,
    object: "letter",
    description: l.fields.description ?? null,
    to: { name: l.fields["to[name]"] ?? null, address_country: l.fields["to[address_country]"] ?? null },
    color: l.fields.color === "true",
    double_sided: l.fields.double_sided === "true",
    address_placement: l.fields.address_placement,
    metadata: Object.fromEntries(
      Object.entries(l.fields)
        .filter(([k]) => k.startsWith("metadata["))
        .map(([k, v]) => [k.slice(9, -1), v]),
    ),
    deleted: l.deleted,
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const expected = `Basic ${Buffer.from(`${apiKey}:`).toString("base64")}`;
        if (req.headers.authorization !== expected)
          return answer(res, 401, { error: { message: "Your API key is not valid.", status_code: 401 } });
        const path = (req.url ?? "").split("?")[0] ?? "";
        if (req.method === "POST" && path === "/v1/letters") {
          const fault = faults.shift();
          if (fault === "network") return req.socket.destroy();
          if (fault) return answer(res, fault.status, { error: { message: fault.message, status_code: fault.status } });
          const key = req.headers["idempotency-key"];
          const earlier = typeof key === "string" ? byIdempotencyKey.get(key) : undefined;
          const known = earlier ? letters.get(earlier) : undefined;
          if (known) return answer(res, 200, letterObject(known));
          const form = await new Request("http://fake/v1/letters", {
            method: "POST",
            headers: { "content-type": String(req.headers["content-type"]) },
            body: Buffer.concat(chunks),
          }).formData();
          const fields: Record<string, string> = {};
          let pdf: Buffer | null = null;
          for (const [k, v] of form.entries()) {
            if (typeof v === "string") fields[k] = v;
            else if (k === "file") pdf = Buffer.from(await v.arrayBuffer());
          }
          if (!pdf || pdf.subarray(0, 5).toString() !== "%PDF-")
            return answer(res, 422, { error: { message: "file is required and must be a PDF", status_code: 422 } });
          if (!fields["to[address_line1]"])
            return answer(res, 422, { error: { message: "to.address_line1 is required", status_code: 422 } });
          const letter: LobLetter = { id: lobId("ltr"), fields, pdf, deleted: false };
          letters.set(letter.id, letter);
          if (typeof key === "string") byIdempotencyKey.set(key, letter.id);
          return answer(res, 200, letterObject(letter));
        }
        const del = /^\/v1\/letters\/(ltr_[0-9a-f]+)$/.exec(path);
        if (req.method === "DELETE" && del?.[1]) {
          const l = letters.get(del[1]);
          if (!l) return answer(res, 404, { error: { message: "letter not found", status_code: 404 } });
          l.deleted = true;
          return answer(res, 200, { id: l.id, deleted: true });
        }
        return answer(res, 404, { error: { message: "not found", status_code: 404 } });
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    webhookSecret,
    letters,
    faults,
    event(letterId, type, opts = {}) {
      const letter = letters.get(letterId);
      const eventId = opts.eventId ?? lobId("evt");
      const rawBody = JSON.stringify({
        id: eventId,
        object: "event",
        date_created: new Date().toISOString(),
        reference_id: letterId,
        event_type: { id: type, enabled_for_test: true, resource: "letters", object: "event_type" },
        body: letter ? letterObject(letter) : { id: letterId, object: "letter" },
      });
      const timestamp = String(opts.timestamp ?? Date.now());
      return {
        rawBody,
        eventId,
        headers: {
          "content-type": "application/json",
          "lob-signature-timestamp": timestamp,
          "lob-signature": lobSignature(webhookSecret, timestamp, rawBody),
        },
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
