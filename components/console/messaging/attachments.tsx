import { getConsole } from "@/lib/console/context";
import { getAttachmentDownloadUrl } from "@/lib/messages/operations";
import { formatBytes } from "./format";

/** How long the download links on a rendered page stay valid. */
const LINK_SECONDS = 3600;

interface AttachmentView {
  id: string;
  filename: string | null;
  contentType: string | null;
  sizeBytes: number | null;
}

/**
 * A message's attachments with download links. The API's `/v1/attachments/...` needs an API key, so
 * each link is a short-lived signed URL (same origin, path only) that the browser can open.
 */
export async function AttachmentList({ attachments }: { attachments: AttachmentView[] }) {
  if (attachments.length === 0) return null;
  const ctx = await getConsole();
  const links = await Promise.all(
    attachments.map(async (a) => {
      const { downloadUrl } = await ctx.invoke(getAttachmentDownloadUrl, {
        params: { attachmentId: a.id },
        query: { expiresInSeconds: LINK_SECONDS },
      });
      const url = new URL(downloadUrl);
      return { ...a, href: `${url.pathname}${url.search}` };
    }),
  );
  return (
    <div className="mt-3">
      <h3 className="text-sm font-medium">Attachments</h3>
      <ul className="mt-1 space-y-1 text-sm">
        {links.map((a) => (
          <li key={a.id}>
            <a className="link" href={a.href} download={a.filename ?? undefined}>
              Download {a.filename ?? "attachment"}
            </a>{" "}
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              ({a.contentType ?? "unknown type"}, {formatBytes(a.sizeBytes)})
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
