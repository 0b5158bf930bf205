import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { SMTPServer } from "smtp-server";
import { afterAll, expect, test } from "vitest";

/**
 * kill -9 of a real server process half-way through 500 sends (30 concurrent clients) to external
 * recipients through a slow SMTP peer; a restarted process on the same database finishes what was
 * committed. Every send answered 2xx is listed once and ends `sent` (or `failed` with a reason);
 * the peer gets each Message-ID at most once, except a message whose first copy it accepted from
 * the killed process before that process committed `sent` (the documented window).
 */

const TOTAL = 500;
const CONCURRENCY = 30;
const KILL_AFTER = 200;
const PEER_DELAY_MS = 150;

const received: { messageId: string; at: number }[] = [];
const peer = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const raw = Buffer.concat(chunks).toString();
      const messageId = /^Message-ID: (.+)$/im.exec(raw)?.[1]?.trim() ?? "?";
      setTimeout(() => {
        received.push({ messageId, at: Date.now() });
        callback();
      }, PEER_DELAY_MS);
    });
  },
});
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await new Promise<void>((r) => peer.close(() => r()));
});

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; info: { port: number; secret?: string; inboxId?: string } }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/fixtures/crash/server.ts"], {
    env: { ...process.env, ...env, LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const info = await new Promise<{ port: number; secret?: string; inboxId?: string }>((resolve, reject) => {
    lines.once("line", (line) => resolve(JSON.parse(line) as { port: number }));
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, info };
}

test("kill -9 between commit and handoff: every answered send is listed once and ends sent; the peer gets each Message-ID once outside the window", { timeout: 300_000 }, async () => {
  await new Promise<void>((r) => peer.listen(0, "127.0.0.1", () => r()));
  const peerPort = (peer.server.address() as { port: number }).port;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-crash-"));
  const env: Record<string, string> = {
    MAIL_TRANSPORT: "smtp",
    SMTP_RELAY_URL: `smtp://127.0.0.1:${peerPort}`,
    OUTBOX_LEASE_SECONDS: "5",
    SMTP_PORT: "0",
    ...(process.env.DATABASE_URL ? {} : { PGLITE_DIR: path.join(dataDir, "pglite") }),
  };
  const first = await startServer({ ...env, SEED: "1" });
  const { secret, inboxId } = first.info;
  if (!secret || !inboxId) throw new Error("the first server did not seed");

  const answered = new Map<string, string>(); // idempotency key -> message id
  let unanswered = 0;
  let next = 0;
  let killedAt = 0;
  const client = async () => {
    while (next < TOTAL) {
      const i = next++;
      try {
        const res = await fetch(`http://127.0.0.1:${first.info.port}/v1/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "idempotency-key": `crash-${i}` },
          body: JSON.stringify({ inboxId, to: `reader${i}@example.com`, subject: `crash ${i}`, text: `message ${i}` }),
        });
        const body = (await res.json()) as { id: string };
        if (res.ok) answered.set(`crash-${i}`, body.id);
        else unanswered++;
      } catch {
        unanswered++;
      }
      if (answered.size >= KILL_AFTER && !killedAt) {
        killedAt = Date.now();
        first.child.kill("SIGKILL");
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  expect(killedAt).toBeGreaterThan(0);

  const restartedAt = Date.now();
  const second = await startServer(env);
  const api = async (url: string) => {
    const res = await fetch(`http://127.0.0.1:${second.info.port}${url}`, { headers: { authorization: `Bearer ${secret}` } });
    return (await res.json()) as { messages: { id: string; status: string; messageId: string }[]; pagination: { nextCursor: string | null } };
  };
  const listAll = async () => {
    const all: { id: string; status: string; messageId: string }[] = [];
    let cursor: string | null = null;
    do {
      const page = await api(`/v1/messages?inboxId=${inboxId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      all.push(...page.messages);
      cursor = page.pagination.nextCursor;
    } while (cursor);
    return all;
  };
  let listed = await listAll();
  for (let i = 0; i < 120 && listed.some((m) => m.status === "queued"); i++) {
    await new Promise((r) => setTimeout(r, 500));
    listed = await listAll();
  }

  const byId = new Map(listed.map((m) => [m.id, m]));
  const perPeer = new Map<string, number[]>();
  for (const r of received) perPeer.set(r.messageId, [...(perPeer.get(r.messageId) ?? []), r.at]);
  const duplicates = [...perPeer.entries()].filter(([, at]) => at.length > 1);
  const statuses = listed.reduce<Record<string, number>>((n, m) => ({ ...n, [m.status]: (n[m.status] ?? 0) + 1 }), {});
  console.log(
    JSON.stringify({ sent: TOTAL, answered2xx: answered.size, unanswered, listed: listed.length, statuses, peerReceived: received.length, distinctAtPeer: perPeer.size, duplicatesInWindow: duplicates.length }),
  );

  // Every answered send is listed exactly once and ended sent (or failed with a reason).
  expect(new Set(listed.map((m) => m.id)).size).toBe(listed.length);
  for (const id of answered.values()) {
    const m = byId.get(id);
    expect(m?.status === "sent" || m?.status === "failed").toBe(true);
  }
  expect(listed.filter((m) => m.status === "queued")).toEqual([]);
  // An accepted (committed) send is never lost: every listed `sent` reached the peer.
  for (const m of listed.filter((x) => x.status === "sent")) expect(perPeer.has(m.messageId)).toBe(true);
  // Nothing reached the peer without a committed record.
  const listedIds = new Set(listed.map((m) => m.messageId));
  expect([...perPeer.keys()].filter((id) => !listedIds.has(id))).toEqual([]);
  // A second copy only for a message whose first copy the killed process handed over (the peer
  // had it before the restart); recovery itself never sends one twice.
  for (const [, at] of duplicates) {
    expect(at.length).toBe(2);
    expect(at[0]).toBeLessThan(restartedAt);
    expect(at[1]).toBeGreaterThanOrEqual(restartedAt);
  }
  expect(duplicates.length).toBeLessThanOrEqual(CONCURRENCY);
  second.child.kill("SIGTERM");
});
