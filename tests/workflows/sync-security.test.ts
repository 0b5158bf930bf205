import { createServer, request as httpRequest, type Server } from "node:http";
import { eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { wfFunctions } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { hashedSigningKey, workflowKeys } from "@/lib/workflows/config";
import { signBody } from "@/lib/workflows/executor/signing";
import { call, newInbox, newOrg } from "../harness";
import { type Harness, sleep, startHarness, waitForRun } from "./harness";

/**
 * Issue 10 #1: nobody who can reach the HTTP port may re-register the app's functions or point
 * the executor at another host. The sync must be signed, the registered URL comes from
 * configuration (never the Host header), the executor refuses registrations naming another URL and
 * never calls a stored foreign URL.
 */
let h: Harness;
let attacker: Server;
let attackerHost = "";
const attackerHits: string[] = [];

beforeAll(async () => {
  attacker = createServer((req, res) => {
    attackerHits.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  const a = attacker.address();
  attackerHost = `127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
});

afterAll(async () => {
  await h?.close();
  attacker.closeAllConnections();
  attacker.close();
});

/** A raw HTTP request, so that the Host header can be forged (fetch would not send it). */
function raw(
  method: string,
  url: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("the sync (PUT on the serve endpoint)", () => {
  test("the app's serve route refuses an unsigned PUT with a forged Host", async () => {
    const { PUT } = (await import("@/app/api/inngest/route")) as unknown as {
      PUT: (req: Request, ctx: unknown) => Promise<Response>;
    };
    const res = await PUT(
      new Request(`http://${attackerHost}/api/inngest`, { method: "PUT", headers: { host: attackerHost } }),
      {},
    );
    expect(res.status).toBe(401);
    expect(attackerHits).toEqual([]);
  });

  test("over HTTP, an unsigned PUT with a forged Host is refused and registers nothing", async () => {
    const db = await getDb();
    const before = await db
      .select({ id: wfFunctions.id, url: wfFunctions.url, updatedAt: wfFunctions.updatedAt })
      .from(wfFunctions)
      .where(like(wfFunctions.id, "svc-%"))
      .orderBy(wfFunctions.id);
    const res = await raw("PUT", h.serveUrl, { Host: attackerHost });
    expect(res.status).toBe(401);
    const forgedSignature = await raw("PUT", h.serveUrl, {
      Host: attackerHost,
      "X-Inngest-Signature": signBody("", "signkey-test-00112233"),
    });
    expect(forgedSignature.status).toBe(401);
    const after = await db
      .select({ id: wfFunctions.id, url: wfFunctions.url, updatedAt: wfFunctions.updatedAt })
      .from(wfFunctions)
      .where(like(wfFunctions.id, "svc-%"))
      .orderBy(wfFunctions.id);
    expect(after).toEqual(before);
    expect(after.every((f) => f.url.startsWith(h.serveUrl))).toBe(true);
    expect(attackerHits).toEqual([]);
  });

  test("a signed PUT with a forged Host registers the configured serve URL, not the Host's", async () => {
    const fn = h.client.createFunction({ id: "sync-probe", triggers: [{ event: "t/sync-probe" }] }, async () => "ok");
    await h.serveFunctions([fn]);
    const res = await raw("PUT", h.serveUrl, {
      Host: attackerHost,
      "X-Inngest-Signature": signBody("", workflowKeys().signingKey),
    });
    expect(res.status).toBe(200);
    const db = await getDb();
    const [row] = await db
      .select()
      .from(wfFunctions)
      .where(eq(wfFunctions.id, `${h.client.id}-sync-probe`));
    expect(new URL(row?.url ?? "").origin).toBe(h.origin);
    expect(attackerHits).toEqual([]);
    await h.serveApp(inngest, functions); // the harness serves the app's functions again
  });
});

describe("the executor's register endpoint", () => {
  test("refuses a registration naming another URL, even with the signing key", async () => {
    const url = `http://${attackerHost}/api/inngest`;
    const payload = {
      url,
      appName: "svc",
      functions: [
        {
          id: "svc-send-scheduled-message",
          name: "hijack",
          triggers: [{ event: "svc/message.scheduled" }],
          steps: {
            step: {
              id: "step",
              name: "step",
              runtime: { type: "http", url: `${url}?fnId=svc-send-scheduled-message&stepId=step` },
            },
          },
        },
      ],
    };
    const res = await fetch(`${h.origin}/fn/register`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${hashedSigningKey(workflowKeys().signingKey)}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify(payload),
    });
    expect(res.status).toBe(403);
    // A step URL elsewhere is refused too, even when the app URL is right.
    const sneaky = await fetch(`${h.origin}/fn/register`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${hashedSigningKey(workflowKeys().signingKey)}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ ...payload, url: h.serveUrl }),
    });
    expect(sneaky.status).toBe(403);
    const db = await getDb();
    const [row] = await db.select().from(wfFunctions).where(eq(wfFunctions.id, "svc-send-scheduled-message"));
    expect(row?.url.startsWith(h.serveUrl)).toBe(true);
    expect(row?.name).not.toBe("hijack");
  });
});

describe("calls", () => {
  test("a function stored with a foreign URL is never called there; the scheduled send still runs", async () => {
    const db = await getDb();
    // What an earlier, unprotected sync could have left behind.
    await db
      .update(wfFunctions)
      .set({ url: `http://${attackerHost}/api/inngest?fnId=svc-send-scheduled-message&stepId=step` })
      .where(eq(wfFunctions.id, "svc-send-scheduled-message"));
    const org = await newOrg();
    const inbox = await newInbox(org, "hijack");
    const res = await call("POST", "/v1/messages", {
      key: org.secret,
      body: {
        inboxId: inbox.id,
        to: "later@example.com",
        subject: "Later",
        text: "x",
        sendAt: new Date(Date.now() + 800).toISOString(),
      },
    });
    expect(res.body.status).toBe("scheduled");
    await waitForRun(
      "svc-send-scheduled-message",
      (r) => r.status === "completed" && (r.event.data as { messageId: string }).messageId === res.body.id,
    );
    const after = await call("GET", `/v1/messages/${res.body.id}`, { key: org.secret });
    expect(after.body.message.status).toBe("sent");
    await sleep(100);
    expect(attackerHits).toEqual([]);
  });
});
