import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback fake of an OpenAI-compatible `POST /v1/chat/completions` (what `LLM_BASE_URL` points
 * at): it records each request and answers `{choices: [{message: {content}}]}` with the content
 * `answer` gives for the parsed request body. `stall()` holds every answer (requests are still
 * recorded as they arrive) until the returned release function is called.
 */
export interface FakeLlmRequest {
  url: string | undefined;
  auth: string | undefined;
  body: {
    model: string;
    response_format: { type: string; json_schema: { name: string } };
    messages: { role: string; content: string }[];
  };
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>/v1`, for LLM_BASE_URL. */
  baseUrl: string;
  requests: FakeLlmRequest[];
  /** The answer's `content` (and status) for a request; default: an empty JSON object. */
  answer: (req: FakeLlmRequest) => { status?: number; content: unknown };
  /** Holds the answers until the returned function is called. */
  stall(): () => void;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  let gate: Promise<void> | null = null;
  const fake: FakeLlm = {
    baseUrl: "",
    requests: [],
    answer: () => ({ content: "{}" }),
    stall() {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = null;
          resolve();
        };
      });
      return release;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString();
    });
    req.on("end", () => {
      const request: FakeLlmRequest = { url: req.url, auth: req.headers.authorization, body: JSON.parse(raw) };
      fake.requests.push(request);
      void (gate ?? Promise.resolve()).then(() => {
        const { status = 200, content } = fake.answer(request);
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
