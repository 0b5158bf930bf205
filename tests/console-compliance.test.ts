import { describe, expect, test } from "vitest";
import { getDb } from "@/db";
import type { Role } from "@/db/schema";
import { getAgentsJwks } from "@/lib/agents/operations";
import { can, consolePrincipal } from "@/lib/auth/roles";
import { runJob } from "@/lib/compliance/job-steps";
import { requestErasure, requestPurge } from "@/lib/compliance/operations";
import { exportChain, verifyAuditChain } from "@/lib/console/compliance";
import type { ConsoleContext } from "@/lib/console/context";
import { complianceJobs } from "@/lib/console/reads";
import { recordAudit } from "@/lib/core/audit";
import { invoke } from "@/lib/core/invoke";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * The compliance page's reads: the jobs list (the organization's own, newest first, certificates
 * once completed) and the export + verify it runs with the CLI's verifier (a fresh export, a
 * downloaded file, a tampered file, erasure gaps explained by the jobs' certificates).
 */

/** The parts of a console context these reads use, for a user of `org` with `role`. */
function consoleOf(org: TestOrg, role: Role = "owner"): ConsoleContext {
  const principal = consolePrincipal({ orgId: org.orgId, userId: org.userId, role });
  const actor = {
    type: "user" as const,
    userId: org.userId,
    email: null,
    org: { id: org.orgId, role },
    principal,
    ip: null,
  };
  return {
    principal,
    role,
    can: (p: Parameters<typeof can>[1]) => can(role, p),
    invoke: async (op: never, input?: never) => (await invoke(op, actor, input ?? {})).data,
  } as unknown as ConsoleContext;
}

const tag = () => Math.random().toString(36).slice(2, 10);

describe("compliance jobs read", () => {
  test("lists the organization's jobs newest first with the certificate once completed; another organization's are not listed", async () => {
    const org = await newOrg();
    const other = await newOrg();
    const inbox = await newInbox(org);
    const ctx = consoleOf(org);
    const erasure = (await ctx.invoke(requestErasure, { body: { address: `gone-${tag()}@example.com` } })).job;
    const purge = (await ctx.invoke(requestPurge, { body: { inboxId: inbox.id } })).job;
    await consoleOf(other).invoke(requestErasure, { body: { address: `theirs-${tag()}@example.com` } });

    const pending = await complianceJobs(ctx);
    expect(pending.map((j) => j.id)).toEqual([purge.id, erasure.id]);
    expect(pending.every((j) => j.status === "pending" && j.certificate === null)).toBe(true);

    await runJob(await getDb(), erasure.id);
    const [, done] = await complianceJobs(ctx);
    expect(done).toMatchObject({ id: erasure.id, status: "completed", subject: { address: null } });
    expect(done?.certificate).toMatchObject({ type: "svc.deletion_certificate.v1", jobId: erasure.id, alg: "EdDSA" });
    expect(await complianceJobs(ctx, 1)).toHaveLength(1);
  }, 60_000);
});

describe("export and verify", () => {
  test("a fresh export and the same export as a file verify; a changed row is named; erasure gaps are explained by the certificates", async () => {
    const org = await newOrg();
    const inbox = await newInbox(org);
    const ctx = consoleOf(org);
    const jwks = await ctx.invoke(getAgentsJwks);
    const subject = `subject-${tag()}@example.com`;
    expect(
      (
        await call("POST", "/v1/messages", {
          key: org.secret,
          body: { inboxId: inbox.id, to: subject, text: "private" },
        })
      ).status,
    ).toBe(200);
    await recordAudit(
      await getDb(),
      { actor: "system:test", ip: null },
      { orgId: org.orgId, action: "test.names_subject", metadata: { address: subject } },
    );
    await recordAudit(await getDb(), { actor: "system:test", ip: null }, { orgId: org.orgId, action: "test.after" });

    const now = await verifyAuditChain(ctx, jwks);
    expect(now.source).toBe("now");
    expect(now.report.problems).toEqual([]);
    expect(now.report.ok).toBe(true);
    expect(now.report.manifests.map((m) => m.signature)).toEqual(["valid"]);
    expect(now.lines[0]).toMatch(/^VERIFIED: \d+ rows in 1 page/);

    const { pages, complete } = await exportChain(ctx.invoke);
    expect(complete).toBe(true);
    const rows = pages.flatMap((p) => p.rows);
    expect(now.report.rowCount).toBe(rows.length);
    const file = await verifyAuditChain(ctx, jwks, JSON.stringify({ pages }));
    expect(file).toMatchObject({ source: "file", report: { ok: true, rowCount: rows.length } });

    // A row changed after the export: the verifier names it.
    const changed = structuredClone(pages);
    const victim = changed[0]?.rows[1];
    if (!victim) throw new Error("expected at least two audit rows");
    victim.action = "something.else";
    const broken = await verifyAuditChain(ctx, jwks, JSON.stringify({ pages: changed }));
    expect(broken.report.ok).toBe(false);
    expect(broken.report.problems).toContainEqual(
      expect.objectContaining({
        chainSeq: victim.chainSeq,
        message: expect.stringContaining("rowHash does not match"),
      }),
    );
    expect(broken.lines[0]).toMatch(/^FAILED/);

    await expect(verifyAuditChain(ctx, jwks, "not json")).rejects.toMatchObject({
      code: "invalid_request",
      param: "file",
    });

    // An erasure removes the audit row naming the subject; its certificate explains the gap.
    const job = (await ctx.invoke(requestErasure, { body: { address: subject } })).job;
    await runJob(await getDb(), job.id);
    const after = await verifyAuditChain(ctx, jwks);
    expect(after.report.problems).toEqual([]);
    expect(after.report.gaps.length).toBeGreaterThanOrEqual(1);
    expect(after.report.gaps.every((g) => g.explained)).toBe(true);
    expect(after.report.certificates).toContainEqual(expect.objectContaining({ signature: "valid" }));
  }, 60_000);
});
