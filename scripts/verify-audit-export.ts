/**
 * Offline verifier of an audit export (`GET /v1/audit-logs/export` pages saved as JSON); the same
 * command as `npm run svc -- compliance verify` (lib/compliance/verify-command.ts).
 *
 *   npx tsx scripts/verify-audit-export.ts <export.json> [--jwks <file|url>] [--certificate <file>]…
 *                                          [--require-explained-gaps] [--json]
 *
 * Exit status: 0 verified, 1 problems found, 2 usage or input error.
 */
import { runVerify, type VerifyOptions } from "@/lib/compliance/verify-command";

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write(
    "usage: verify-audit-export <export.json> [--jwks <file|url>] [--certificate <file>]... [--require-explained-gaps] [--json]\n",
  );
  process.exit(2);
}

const args = process.argv.slice(2);
let file: string | undefined;
const opts: VerifyOptions & { certificates: string[] } = { certificates: [] };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--jwks") opts.jwks = args[++i] ?? usage("--jwks needs a value");
  else if (a === "--certificate") opts.certificates.push(args[++i] ?? usage("--certificate needs a value"));
  else if (a === "--json") opts.json = true;
  else if (a === "--require-explained-gaps") opts.requireExplainedGaps = true;
  else if (a === "--help" || a === "-h") usage();
  else if (a?.startsWith("--")) usage(`unknown option ${a}`);
  else if (!file) file = a;
  else usage("one export file at a time");
}
if (!file) usage();
process.exit(await runVerify(file, opts, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }));
