import Link from "next/link";
import { FileRowActions, ShareLinks, UploadBox } from "@/components/console/files/files";
import { RefreshWhile } from "@/components/console/refresh-while";
import { Badge, Card, EmptyState, NoAccess, PageHeader, Table, Td, Time } from "@/components/console/ui";
import {
  getBucketObject,
  listBucketObjects,
  listBuckets,
  listShareLinkOpens,
  listShareLinks,
} from "@/lib/buckets/operations";
import { getConsole } from "@/lib/console/context";

export const metadata = { title: "Files — svc console" };

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

const SCAN_TONE = { clean: "green", infected: "red", failed: "red", pending: "yellow", skipped: "gray" } as const;

/** Buckets, their files with scan status, uploads with progress, and share links with their opens. */
export default async function FilesPage({
  searchParams,
}: {
  searchParams: Promise<{ bucket?: string; object?: string }>;
}) {
  const ctx = await getConsole();
  if (!ctx.can("buckets:read")) return <NoAccess title="Files" what="files" />;
  const sp = await searchParams;
  const buckets = (await ctx.invoke(listBuckets, { query: { limit: 100 } })).data;
  const bucket = buckets.find((b) => b.id === sp.bucket) ?? buckets.find((b) => b.isDefault) ?? buckets[0];
  if (!bucket) return <EmptyState title="No buckets" />;
  const objects = (await ctx.invoke(listBucketObjects, { params: { bucketId: bucket.id }, query: { limit: 100 } }))
    .data;
  const canWrite = ctx.can("buckets:write");
  const selected =
    sp.object && objects.some((o) => o.id === sp.object)
      ? await ctx.invoke(getBucketObject, { params: { bucketId: bucket.id, objectId: sp.object } })
      : null;
  const links = selected
    ? (await ctx.invoke(listShareLinks, { params: { bucketId: bucket.id, objectId: selected.id } })).data
    : [];
  const opens = await Promise.all(
    links.map((l) =>
      ctx.invoke(listShareLinkOpens, { params: { bucketId: bucket.id, objectId: l.objectId, linkId: l.id } }),
    ),
  );
  return (
    <>
      <PageHeader
        title="Files"
        description="Upload files to buckets; every file is scanned for malware before it can be shared. Share links can have a password, a use limit and an expiry."
      />
      <RefreshWhile active={objects.some((o) => o.scanStatus === "pending")} />
      <div className="space-y-6">
        <nav aria-label="Buckets" className="flex flex-wrap gap-2">
          {buckets.map((b) => (
            <Link
              key={b.id}
              href={`/files?bucket=${b.id}`}
              aria-current={b.id === bucket.id ? "page" : undefined}
              className={`rounded-lg border px-3 py-2 text-sm ${b.id === bucket.id ? "border-zinc-900 font-semibold dark:border-zinc-100" : "border-zinc-300 dark:border-zinc-700"}`}
            >
              {b.displayName ?? b.name}
              <span className="block text-xs text-zinc-600 dark:text-zinc-400">
                {b.objectCount} files · {size(b.usedBytes)}
              </span>
            </Link>
          ))}
        </nav>
        {canWrite && !bucket.isInbound && bucket.status === "active" ? (
          <Card title={`Upload to ${bucket.displayName ?? bucket.name}`}>
            <UploadBox bucketId={bucket.id} />
          </Card>
        ) : null}
        {bucket.isInbound ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Attachments of inbound email land here and are scanned like uploads.
          </p>
        ) : null}
        {objects.length === 0 ? (
          <EmptyState
            title="No files yet"
            description={canWrite && !bucket.isInbound ? "Drop a file above to upload it." : undefined}
          />
        ) : (
          <Table head={["File", "Size", "Scan", "Uploaded", ""]} caption={`Files in ${bucket.name}`}>
            {objects.map((o) => (
              <tr key={o.id}>
                <Td>
                  <Link className="link" href={`/files?bucket=${bucket.id}&object=${o.id}`}>
                    {o.filename}
                  </Link>
                </Td>
                <Td>{size(o.bytes)}</Td>
                <Td>
                  <Badge tone={SCAN_TONE[o.scanStatus]}>{o.scanStatus}</Badge>
                  {o.scanSignature ? (
                    <span className="block text-xs text-red-700 dark:text-red-400">{o.scanSignature}</span>
                  ) : null}
                </Td>
                <Td>
                  <Time value={o.createdAt} />
                </Td>
                <Td>
                  {canWrite && !bucket.isInbound ? (
                    <FileRowActions bucketId={bucket.id} objectId={o.id} filename={o.filename} />
                  ) : null}
                </Td>
              </tr>
            ))}
          </Table>
        )}
        {selected ? (
          <Card title={`Share links of ${selected.filename}`}>
            <ShareLinks
              bucketId={bucket.id}
              objectId={selected.id}
              canShare={canWrite && selected.scanStatus === "clean"}
              scanStatus={selected.scanStatus}
              links={links.map((l, i) => ({ ...l, opens: opens[i]?.summary ?? null }))}
            />
          </Card>
        ) : null}
      </div>
    </>
  );
}
