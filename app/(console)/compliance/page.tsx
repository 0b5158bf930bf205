import { inputRules } from "@/components/console/contract-input";
import { RefreshWhile } from "@/components/console/refresh-while";
import { CertificateButton, ExportVerify, StartErasure, StartPurge } from "@/components/console/trust/compliance";
import {
  Badge,
  Card,
  Details,
  EmptyState,
  Mono,
  NoAccess,
  PageHeader,
  StatusBadge,
  Table,
  Td,
  Time,
} from "@/components/console/ui";
import { requestErasure } from "@/lib/compliance/contracts";
import { getResidency } from "@/lib/compliance/operations";
import { getConsole } from "@/lib/console/context";
import { COMPLIANCE_JOBS_SHOWN, complianceJobs } from "@/lib/console/reads";
import { listInboxes } from "@/lib/inboxes/operations";

export const metadata = { title: "Compliance — svc console" };

/** A count in words: (2, `contactHandles`) → "2 contact handles", (1, `messages`) → "1 message". */
const counted = (n: number, key: string) => {
  const plural = key.replace(/([A-Z])/g, " $1").toLowerCase();
  return `${n} ${n === 1 ? plural.replace(/s$/, "") : plural}`;
};

/** Audit export with verification, erasure and purge jobs with their signed certificates, residency. */
export default async function CompliancePage() {
  const ctx = await getConsole();
  if (!ctx.can("compliance:read")) return <NoAccess title="Compliance" what="compliance" />;
  const canWrite = ctx.can("compliance:write");
  const [jobs, residency, inboxes] = await Promise.all([
    complianceJobs(ctx),
    ctx.invoke(getResidency),
    canWrite && ctx.can("inboxes:read")
      ? ctx.invoke(listInboxes).then((r) => r.inboxes.map((i) => ({ id: i.id, address: i.address })))
      : [],
  ]);
  const inboxAddress = new Map(inboxes.map((i) => [i.id, i.address]));
  const e = residency.enforcement;
  return (
    <>
      <PageHeader
        title="Compliance"
        description="The hash-chained audit export with its signed manifest, subject erasure and inbox purge with signed deletion certificates, and where this deployment keeps and sends data. Signatures verify against the public JWKS at /v1/agents/jwks."
      />
      <RefreshWhile active={jobs.some((j) => j.status === "pending" || j.status === "running")} />
      <div className="space-y-6">
        <Card title="Audit export">
          <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
            Every audit row of the organization in chain order; each row hashes its predecessor, and each page carries a
            manifest signed with the service key. Anyone can check a download offline with npm run svc -- compliance
            verify.
          </p>
          <ExportVerify />
        </Card>

        <Card title="Erasure and purge jobs">
          {canWrite ? (
            <div className="mb-6 grid gap-6 md:grid-cols-2">
              <StartErasure addressRules={inputRules(requestErasure.body, "address")} />
              {inboxes.length > 0 ? (
                <StartPurge inboxes={inboxes} />
              ) : (
                <p className="text-sm text-zinc-600 dark:text-zinc-400">No inbox to purge.</p>
              )}
            </div>
          ) : null}
          {jobs.length === 0 ? (
            <EmptyState
              title="No jobs yet"
              description={
                canWrite
                  ? "An erasure or purge you start appears here with its progress and, once done, its signed certificate."
                  : "An owner or admin can start one."
              }
            />
          ) : (
            <Table
              head={["Job", "Subject", "Status", "Removed", "Requested", "Certificate"]}
              caption={`Erasure and purge jobs, newest first (up to ${COMPLIANCE_JOBS_SHOWN})`}
            >
              {jobs.map((j) => {
                const removed = Object.entries(j.counts).filter(([, n]) => n > 0);
                const s = j.subject;
                return (
                  <tr key={j.id} data-testid="compliance-job">
                    <Td>
                      <span className="block font-medium">{j.kind === "erasure" ? "Erasure" : "Purge"}</span>
                      <Mono>{j.id}</Mono>
                    </Td>
                    <Td className="max-w-xs break-words">
                      {s.address ? (
                        s.address
                      ) : s.inboxId ? (
                        <>inbox {inboxAddress.get(s.inboxId) ?? <Mono>{s.inboxId}</Mono>}</>
                      ) : s.contactId ? (
                        <>
                          contact <Mono>{s.contactId}</Mono>
                        </>
                      ) : s.addressSha256 ? (
                        <>
                          address erased; SHA-256 <Mono>{s.addressSha256.slice(0, 16)}…</Mono>
                        </>
                      ) : (
                        "—"
                      )}
                    </Td>
                    <Td>
                      <StatusBadge status={j.status} />
                      {j.error ? <span className="block text-xs text-red-700 dark:text-red-400">{j.error}</span> : null}
                    </Td>
                    <Td className="max-w-xs">
                      {removed.length === 0
                        ? j.status === "completed"
                          ? "nothing found"
                          : "—"
                        : removed.map(([k, n]) => counted(n, k)).join(", ")}
                    </Td>
                    <Td>
                      <Time value={j.createdAt} />
                      {j.completedAt ? (
                        <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                          done <Time value={j.completedAt} />
                        </span>
                      ) : null}
                    </Td>
                    <Td>
                      {j.certificate ? (
                        <CertificateButton jobId={j.id} kind={j.kind} certificate={j.certificate} />
                      ) : (
                        <span className="text-xs text-zinc-600 dark:text-zinc-400">
                          {j.status === "failed" ? "none (failed)" : "when completed"}
                        </span>
                      )}
                    </Td>
                  </tr>
                );
              })}
            </Table>
          )}
        </Card>

        <Card title="Residency">
          <Details
            items={[
              ["Primary region", residency.primaryRegion],
              ["Data residency", residency.dataResidency],
              [
                "No US egress",
                residency.noUsEgress ? <Badge tone="green">yes</Badge> : <Badge tone="yellow">no</Badge>,
              ],
              [
                "CLOUD Act exposure",
                residency.cloudActExposed ? <Badge tone="yellow">exposed</Badge> : <Badge tone="green">none</Badge>,
              ],
              ["Controller's parent", residency.controllerParent ?? "not declared"],
              [
                "Where it runs",
                `database ${e.database}, storage ${e.storage}, mail ${e.mailTransport}, workflows ${e.workflows}, outbound HTTP ${e.outboundHttp}`,
              ],
              [
                "Subprocessor list",
                <span key="v">
                  version {residency.subprocessorListVersion}
                  {residency.subprocessorListUpdatedAt ? (
                    <>
                      , changed <Time value={residency.subprocessorListUpdatedAt} />
                    </>
                  ) : null}
                </span>,
              ],
            ]}
          />
          <div className="mt-4">
            {residency.subprocessors.length === 0 ? (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">
                No subprocessors: this deployment sends nothing to third parties (webhook endpoints you add are yours).
              </p>
            ) : (
              <Table head={["Subprocessor", "Purpose", "Location", "Jurisdiction", "Source"]} caption="Subprocessors">
                {residency.subprocessors.map((p) => (
                  <tr key={`${p.name}-${p.purpose}`}>
                    <Td>
                      {p.url ? (
                        <a className="link" href={p.url} rel="noreferrer noopener" target="_blank">
                          {p.name}
                        </a>
                      ) : (
                        p.name
                      )}
                    </Td>
                    <Td>{p.purpose}</Td>
                    <Td>{p.location}</Td>
                    <Td>{p.jurisdiction ?? "—"}</Td>
                    <Td>{p.source}</Td>
                  </tr>
                ))}
              </Table>
            )}
          </div>
        </Card>
      </div>
    </>
  );
}
