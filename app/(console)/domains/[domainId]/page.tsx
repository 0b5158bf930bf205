import Link from "next/link";
import { DomainDns } from "@/components/console/config/domains";
import { NoAccess, PageHeader } from "@/components/console/ui";
import { getConsole } from "@/lib/console/context";
import { readOne } from "@/lib/console/pages";
import { getDomain } from "@/lib/domains/operations";

export const metadata = { title: "Domain — svc console" };

/** One domain: its status, the DNS records to publish (with copy buttons), Check DNS and delete. */
export default async function DomainPage({ params }: { params: Promise<{ domainId: string }> }) {
  const ctx = await getConsole();
  if (!ctx.can("domains:read")) {
    return <NoAccess title="Domain" what="domains" />;
  }
  const { domain } = await readOne((await params).domainId, (domainId) =>
    ctx.invoke(getDomain, { params: { domainId } }),
  );
  return (
    <>
      <p className="mb-2 text-sm">
        <Link className="link" href="/domains">
          ← Domains
        </Link>
      </p>
      <PageHeader
        title={domain.name}
        description={
          domain.isShared
            ? "The shared domain: always verified, read-only."
            : "Publish the records below, then check DNS to verify the domain."
        }
      />
      <DomainDns domain={domain} canWrite={ctx.can("domains:write")} />
    </>
  );
}
