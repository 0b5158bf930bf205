"use server";

import { z } from "zod";
import { VERIFY_FILE_MAX_BYTES, VERIFY_FILE_TOO_LARGE } from "@/components/console/config/limits";
import { getAgentsJwks } from "@/lib/agents/operations";
import { exportAuditLogs, requestErasure, requestPurge } from "@/lib/compliance/operations";
import { invalidInput, runAction } from "@/lib/console/action";
import { exportChain, verifyAuditChain } from "@/lib/console/compliance";
import type { ConsoleContext, SignedInUser } from "@/lib/console/context";
import { invalidRequest } from "@/lib/core/errors";

/** The organization's audit chain as export pages (`{pages}`: what `svc compliance verify` reads). */
export async function exportAuditAction(input: unknown) {
  return runAction(exportAuditLogs, input, { then: (first, ctx) => exportChain(ctx.invoke, first) });
}

const verifyForm = z.strictObject({
  __org: z.string().optional(),
  file: z.string().max(VERIFY_FILE_MAX_BYTES, VERIFY_FILE_TOO_LARGE).optional(),
});

const isConsole = (ctx: ConsoleContext | SignedInUser): ctx is ConsoleContext => "org" in ctx;

/**
 * Verifies an export with the verifier the CLI uses: the `file` given (an export downloaded
 * before), else the chain exported now (lib/console/compliance.ts).
 */
export async function verifyAuditAction(input: unknown) {
  const form = verifyForm.safeParse(input && typeof input === "object" ? input : {});
  if (!form.success) return invalidInput(form.error);
  const { file, __org } = form.data;
  return runAction(
    getAgentsJwks,
    { __org },
    {
      then: (jwks, ctx) => {
        if (!isConsole(ctx)) throw invalidRequest("Open an organization first.");
        return verifyAuditChain(ctx, jwks, file);
      },
    },
  );
}
/** Starts an irreversible erasure of an address (or a contact). */
export async function requestErasureAction(input: unknown) {
  return runAction(requestErasure, input, { labels: { address: "email address" }, then: (data) => data.job });
}

/** Starts an irreversible purge of an inbox's messages. */
export async function requestPurgeAction(input: unknown) {
  return runAction(requestPurge, input, { labels: { inboxId: "inbox" }, then: (data) => data.job });
}
