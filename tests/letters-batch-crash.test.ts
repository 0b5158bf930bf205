import path from "node:path";
import postgres from "postgres";
import { afterAll, expect, test } from "vitest";
import { CrashProcesses, crashApi, phaseClock } from "./fixtures/crash/processes";
import { FROM } from "./fixtures/letters";

/**
 * kill -9 of a real server process half-way through a letter batch (`POST /v1/letters/batch`, the
 * fan-out with the embedded executor, Chromium renders): the process dies with chunks applied and
 * others being rendered; the restarted process resumes the fan-out and the batch ends with exactly
 * one letter per recipient — counted by `metadata.batchIndex` over the letters the API lists — and
 * every item `created`. On PostgreSQL it runs in a database of its own.
 *
 * Size: the issue's 1,000 recipients (40 chunks of 25), killed once 500 letters are made. On a quiet
 * 2-core machine it takes 71 s on PGlite and 48 s on PostgreSQL (1,000 Chromium renders and PDF
 * reads); under heavy load several minutes, hence the timeout. The guarantee does not depend on the
 * size: each recipient's letter id is fixed when the batch is stored, an item leaves `pending` in
 * the transaction that records its letter, and a chunk is applied once; what a kill can leave is a
 * chunk rendered but not applied, which the resumed run renders again. `CRASH_BATCH=75` runs a
 * smaller one.
 *
 * On PostgreSQL the killed process's runs keep their leases for two minutes (the executor's lease):
 * the test requeues them as the embedded executor itself does on PGlite at start
 * (`recoverOrphanedRuns`: `running` → `queued`), instead of waiting the lease out.
 */

const RECIPIENTS = Number(process.env.CRASH_BATCH ?? 1000);
const processes = new CrashProcesses();
afterAll(() => processes.close());

const TO = {
  name: "Erika Mustermann",
  street: "Hauptstraße",
  postalCode: "10115",
  city: "Berlin",
  country: "DE",
};

test(`kill -9 half-way through a ${RECIPIENTS}-recipient letter batch: after the restart exactly one letter per recipient`, {
  timeout: Math.max(300_000, RECIPIENTS * 1_500), // 25 min for 1,000 (its polls give up sooner)
}, async () => {
  const { databaseUrl, base, env } = await processes.serverEnv("letters", ({ base, dataDir }) => ({
    INTERNAL_URL: base,
    WORKFLOWS: "all",
    OUTBOX_LEASE_SECONDS: "5",
    // The test letters' simulated clock stays still: only the batch is measured here.
    LETTER_SIM_STEP_MS: "3600000",
    STORAGE_DIR: path.join(dataDir, "storage"),
  }));
  const { phase, phases } = phaseClock();
  const first = await processes.start({ ...env, SEED: "1" });
  phase("firstUp");
  const api = crashApi(base, first.info.secret ?? "");

  const req = await api("GET", "/v1/letters/requirements");
  const starter = req.body.starterTemplates[0];
  const template = await api("POST", "/v1/letters/templates", {
    name: starter.name,
    html: starter.html,
    variables: starter.variables,
  });
  expect(template.status, JSON.stringify(template.body)).toBe(200);
  const recipients = Array.from({ length: RECIPIENTS }, (_, i) => ({
    to: { ...TO, name: `Erika Mustermann ${i}`, houseNumber: String(i + 1) },
    templateData: { greeting: `Dear reader ${i},`, body: "Short body.", closing: "Regards" },
  }));
  const made = await api("POST", "/v1/letters/batch", { templateId: template.body.id, from: FROM, recipients });
  expect(made.status, JSON.stringify(made.body).slice(0, 500)).toBe(202);
  const batchId = made.body.id as string;
  type Batch = { status: string; created: number; failed: number; pending: number; total: number };
  const batch = async () => (await api("GET", `/v1/letters/batch/${batchId}`)).body as Batch;

  // Half-way: at least one chunk applied, letters still pending (chunks in flight are lost).
  let before: Batch = await batch();
  for (let i = 0; i < 6000 && before.created + before.failed < RECIPIENTS / 2; i++) {
    await new Promise((r) => setTimeout(r, 50));
    before = await batch();
  }
  first.child.kill("SIGKILL");
  await first.exited;
  phase("killed");
  expect(before.created).toBeGreaterThan(0);
  expect(before.pending, "the batch completed before the kill").toBeGreaterThan(0);

  if (databaseUrl) {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    await sql`update wf_runs set status = 'queued', lease_until = null, due_at = now() where status = 'running'`;
    await sql.end();
  }
  await processes.start(env);
  phase("secondUp");
  let after: Batch = await batch();
  for (let i = 0; i < 6000 && after.status !== "completed"; i++) {
    await new Promise((r) => setTimeout(r, 200));
    after = await batch();
  }
  phase("completed");
  const counts = ({ created, failed, pending }: Batch) => ({ created, failed, pending });
  console.log("letters-batch-crash phases (ms)", phases, "at the kill", counts(before));
  expect(after).toMatchObject({ status: "completed", total: RECIPIENTS, created: RECIPIENTS, failed: 0, pending: 0 });

  // Every letter of the organization (it has only this batch's), counted by batchIndex.
  const perIndex = new Map<number, number>();
  let cursor: string | null = null;
  for (;;) {
    const page = await api("GET", `/v1/letters?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
    for (const l of page.body.data as { metadata: { batchId?: string; batchIndex?: number } }[]) {
      expect(l.metadata.batchId).toBe(batchId);
      const i = Number(l.metadata.batchIndex);
      perIndex.set(i, (perIndex.get(i) ?? 0) + 1);
    }
    if (!page.body.pagination.hasMore) break;
    cursor = page.body.pagination.nextCursor;
  }
  expect(perIndex.size).toBe(RECIPIENTS);
  expect([...perIndex.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  expect([...perIndex.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: RECIPIENTS }, (_, i) => i));
});
