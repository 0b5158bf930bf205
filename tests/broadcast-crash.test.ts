import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, expect, test } from "vitest";
import { CrashProcesses, crashApi, phaseClock } from "./fixtures/crash/processes";

/**
 * kill -9 of a real server process half-way through a broadcast (`POST /v1/audiences/{id}/send`, the
 * fan-out with the embedded executor and the outbox relay, the embedded mail transport): the process
 * dies with chunks applied, messages made and not yet handed off, and chunks not yet applied; the
 * restarted process resumes the fan-out and its relay hands off what is left. Then:
 * - the broadcast is `completed` with every member `sent`;
 * - the inbox's messages, listed through the API, are exactly one per member (by `to[0]`), each `sent`;
 * - the embedded transport's outbox directory (one `.eml` per handoff) has every member's mail; a
 *   member with more than one file is the documented window (lib/messages/handoff.ts: the transport
 *   accepted, the process died before the commit that marks it sent, the restarted relay sends it
 *   again; the relay hands off a claimed batch of up to 100 and marks the accepted ones sent in one
 *   statement per slice of 25, so a kill can repeat up to that many), so all of that member's files carry one Message-ID, the
 *   listed message's; every file is whole (the transport renames a file it has written).
 * On PostgreSQL it runs in a database of its own (and logs what the kill left: messages by status,
 * chunks applied).
 *
 * Size: `CRASH_BROADCAST` members (default 2,000: 10 chunks of 200), killed once about half of them
 * have a message (the newest listed message's member) and some are sent: the fan-out runs ahead of
 * the relay, so waiting for half sent would find every chunk applied. On a quiet 2-core machine it
 * takes 10–16 s on PGlite and 8–12 s on PostgreSQL (two server starts included). The guarantee
 * does not depend on the size: a chunk is applied once (its proof row) and each member's message
 * carries its per-member idempotency key, so a resumed fan-out makes no second message; the outbox
 * entry of a made message is handed off until it is marked sent.
 *
 * On PostgreSQL the killed process's workflow runs keep their leases for two minutes (the executor's
 * lease): the test requeues them as the embedded executor itself does on PGlite at start
 * (`recoverOrphanedRuns`: `running` → `queued`); its outbox leases run out after OUTBOX_LEASE_SECONDS.
 */

const MEMBERS = Number(process.env.CRASH_BROADCAST ?? 2000);
const processes = new CrashProcesses();
afterAll(() => processes.close());

type Counts = { total: number; sent: number; failed: number; suppressed: number; pending: number };
type Broadcast = { status: string; counts: Counts };
type Listed = { to: string[]; status: string; messageId: string };

/** `<id@host>` or `id@host` → `id@host`. */
const bare = (messageId: string) => messageId.trim().replace(/^<|>$/g, "");

/** A header of a raw message (unfolded), or null. */
function header(raw: string, name: string): string | null {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? "";
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : null;
}

test(`kill -9 half-way through a ${MEMBERS}-member broadcast: after the restart exactly one message per member`, {
  timeout: Math.max(120_000, MEMBERS * 60),
}, async () => {
  const run = randomBytes(4).toString("hex");
  const { databaseUrl, base, env } = await processes.serverEnv("broadcast", ({ base, dataDir }) => ({
    INTERNAL_URL: base,
    WORKFLOWS: "all",
    OUTBOX_LEASE_SECONDS: "5",
    MAIL_TRANSPORT: "embedded",
    OUTBOX_DIR: path.join(dataDir, "outbox"),
    STORAGE_DIR: path.join(dataDir, "storage"),
  }));
  const outboxDir = env.OUTBOX_DIR as string;
  const { phase, phases } = phaseClock();
  const first = await processes.start({ ...env, SEED: "1" });
  phase("firstUp");
  const api = crashApi(base, first.info.secret ?? "");

  const inbox = await api("POST", "/v1/inboxes", { address: `news-${run}@svc.localhost` });
  expect(inbox.status, JSON.stringify(inbox.body)).toBe(200);
  const inboxId = inbox.body.inbox.id as string;
  const audience = await api("POST", "/v1/audiences", { name: `Crash ${run}` });
  expect(audience.status, JSON.stringify(audience.body)).toBe(200);
  const audienceId = audience.body.list.id as string;
  const emails = Array.from({ length: MEMBERS }, (_, i) => `member${String(i).padStart(5, "0")}.${run}@example.com`);
  for (let i = 0; i < emails.length; i += 2000) {
    const added = await api("POST", `/v1/audiences/${audienceId}/members`, {
      members: emails.slice(i, i + 2000).map((email) => ({ email })),
    });
    expect(added.status, JSON.stringify(added.body).slice(0, 300)).toBe(200);
  }
  phase("membersAdded");

  const sent = await api("POST", `/v1/audiences/${audienceId}/send`, {
    inboxId,
    subject: `Crash ${run}`,
    text: "One message per member, kill -9 or not.",
  });
  expect(sent.status, JSON.stringify(sent.body).slice(0, 300)).toBe(202);
  const broadcastId = sent.body.id as string;
  expect(broadcastId).toMatch(/^bcast_/);
  const broadcast = async () => {
    const res = await api("GET", `/v1/broadcasts/${broadcastId}`);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    return res.body.broadcast as Broadcast;
  };

  // How far the fan-out got: the newest message's member (chunks go through the members by address,
  // and the addresses sort as their numbers), so about how many members' messages are made.
  const made = async () => {
    const page = await api("GET", `/v1/messages?inboxId=${inboxId}&limit=1`);
    const to = (page.body.messages as Listed[] | undefined)?.[0]?.to[0];
    return to ? Number(/^member(\d+)\./.exec(to)?.[1] ?? -1) + 1 : 0;
  };

  // Half-way: about half the members' messages made (the fan-out goes on after the kill), some of
  // them handed off (the relay too), and the broadcast not completed.
  let before = await broadcast();
  let madeBefore = await made();
  for (let i = 0; i < 6000 && (madeBefore < MEMBERS / 2 || before.counts.sent === 0); i++) {
    await new Promise((r) => setTimeout(r, 20));
    madeBefore = await made();
    before = await broadcast();
  }
  first.child.kill("SIGKILL");
  await first.exited;
  phase("killed");
  expect(before.counts.sent, "no member's message was sent before the kill").toBeGreaterThan(0);
  expect(before.status, "the broadcast completed before the kill").not.toBe("completed");
  expect(before.counts.pending, "the broadcast completed before the kill").toBeGreaterThan(0);

  // On PostgreSQL, what the dead process left (messages by status, chunks applied), for the log.
  let leftInDb: Record<string, unknown> | null = null;
  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const statuses = await sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from messages where inbox_id = ${inboxId} group by status`;
    const [chunks] = await sql<{ n: number }[]>`select count(*)::int as n from fanout_chunks`;
    leftInDb = {
      messages: Object.fromEntries(statuses.map((r) => [r.status, r.n])),
      chunksApplied: chunks?.n,
    };
    await sql`update wf_runs set status = 'queued', lease_until = null, due_at = now() where status = 'running'`;
    await sql.end();
  }
  const filesAtKill = new Set(fs.existsSync(outboxDir) ? fs.readdirSync(outboxDir) : []);
  await processes.start(env);
  phase("secondUp");
  let after = await broadcast();
  for (let i = 0; i < 6000 && after.status !== "completed"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await broadcast();
  }
  phase("completed");

  // Every message of the inbox (it has only this broadcast's), counted by recipient.
  const listed: Listed[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await api(
      "GET",
      `/v1/messages?inboxId=${inboxId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
    listed.push(...(page.body.messages as Listed[]));
    if (!page.body.pagination.hasMore) break;
    cursor = page.body.pagination.nextCursor;
  }
  const perMember = new Map<string, Listed[]>();
  for (const m of listed) {
    const to = String(m.to[0]).toLowerCase();
    perMember.set(to, [...(perMember.get(to) ?? []), m]);
  }

  // The embedded transport's files, by recipient: their Message-IDs. Every `.eml` is whole (the
  // transport writes it aside and renames it; a kill mid-write leaves only a `.tmp`).
  const files = fs.readdirSync(outboxDir).filter((f) => f.endsWith(".eml"));
  const perFileMember = new Map<string, string[]>();
  const torn: { file: string; bytes: number }[] = [];
  for (const f of files) {
    const raw = fs.readFileSync(path.join(outboxDir, f), "utf8");
    const to = /[^\s<>,"]+@[^\s<>,"]+/.exec(header(raw, "To") ?? "")?.[0]?.toLowerCase();
    const id = header(raw, "Message-ID");
    if (!to || !id) {
      torn.push({ file: f, bytes: raw.length });
      continue;
    }
    perFileMember.set(to, [...(perFileMember.get(to) ?? []), bare(id)]);
  }
  const duplicated = [...perFileMember.entries()].filter(([, ids]) => ids.length > 1);
  console.log(
    "broadcast-crash",
    JSON.stringify({
      database: databaseUrl ? "postgres" : "pglite",
      members: MEMBERS,
      phasesMs: phases,
      atKill: {
        status: before.status,
        ...before.counts,
        madeAbout: madeBefore,
        emlFiles: filesAtKill.size,
        ...(leftInDb ?? {}),
      },
      after: after.counts,
      listed: listed.length,
      emlFiles: files.length,
      membersWithDuplicateFiles: duplicated.length,
      duplicateFiles: duplicated.reduce((n, [, ids]) => n + ids.length - 1, 0),
      tornFiles: torn,
    }),
  );

  // 1. Completed, every member sent.
  expect(after).toMatchObject({
    status: "completed",
    counts: { total: MEMBERS, sent: MEMBERS, failed: 0, pending: 0 },
  });

  // 2. Exactly one message per member, each sent.
  expect(listed).toHaveLength(MEMBERS);
  expect(
    [...perMember.entries()].filter(([, ms]) => ms.length !== 1).map(([to, ms]) => [to, ms.length]),
    "members with other than one message",
  ).toEqual([]);
  expect([...perMember.keys()].sort()).toEqual(emails);
  expect(listed.filter((m) => m.status !== "sent").map((m) => [m.to[0], m.status])).toEqual([]);

  // 3. Every member's mail reached the transport whole; a member's second file is the same message again.
  expect(torn, "files without To or Message-ID").toEqual([]);
  expect(
    emails.filter((e) => !perFileMember.has(e)),
    "members without a file in the outbox",
  ).toEqual([]);
  expect(
    [...perFileMember.keys()].filter((to) => !perMember.has(to)),
    "files for no member",
  ).toEqual([]);
  for (const [to, ids] of perFileMember) {
    const messageId = bare(perMember.get(to)?.[0]?.messageId ?? "");
    expect(new Set(ids), `${to}: its files' Message-IDs`).toEqual(new Set([messageId]));
  }
});
