import { and, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { bucketObjects, shareLinkOpens, shareLinks } from "@/db/schema";
import { verifyPassword } from "@/lib/account/passwords";
import { appendEvent } from "@/lib/events/ledger";
import { servable } from "./gate";
import { claimPasswordCheck, recordShareFailure, shareLockout } from "./share-throttle";
import { shareLinkPublicId } from "./ids";
import { hashToken, type LinkRow, toShareBundle, toShareLink } from "./share-rows";

// The token holder's side: /s/{token} (the page) and /d/{token} (the download), and the share
// links a send's body names (lib/messages/stages/attach.ts). The owner's verbs are in
// share-links.ts and share-bundles.ts.

export interface SharedFile {
  id: string;
  filename: string;
  bytes: number;
  contentType: string | null;
  storageKey: string;
}

export interface ShareView {
  linkId: string;
  kind: LinkRow["kind"];
  hasPassword: boolean;
  files: SharedFile[];
  /** Why the link cannot be used now (expired, revoked, used up), or null. */
  closed: string | null;
}

function closedReason(link: LinkRow, now = new Date()): string | null {
  if (link.revokedAt) return "revoked";
  if (link.expiresAt && link.expiresAt <= now) return "expired";
  if (link.maxUses !== null && link.usesCount >= link.maxUses) return "used_up";
  return null;
}

async function linkByToken(db: DbOrTx, token: string): Promise<LinkRow | null> {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return null;
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(eq(shareLinks.tokenHash, hashToken(token)));
  return row ?? null;
}

async function filesOf(db: DbOrTx, link: LinkRow): Promise<SharedFile[]> {
  const ids = link.kind === "object" ? (link.objectId ? [link.objectId] : []) : link.objectIds;
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(bucketObjects)
    .where(and(eq(bucketObjects.orgId, link.orgId), inArray(bucketObjects.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r && servable(r.state)
      ? [{ id: r.id, filename: r.filename, bytes: r.bytes, contentType: r.contentType, storageKey: r.storageKey }]
      : [];
  });
}

export interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

async function logOpen(
  db: DbOrTx,
  link: LinkRow,
  kind: "view" | "download",
  outcome: string,
  objectId: string | null,
  who: Visitor,
): Promise<void> {
  await db.insert(shareLinkOpens).values({
    orgId: link.orgId,
    shareLinkId: link.id,
    objectId,
    kind,
    outcome,
    ip: who.ip,
    userAgent: who.userAgent?.slice(0, 300) ?? null,
  });
}

/** The share page: what the link shows (a view is logged; it uses nothing). Null for an unknown token. */
export async function viewShare(
  db: DbOrTx,
  token: string,
  who: Visitor,
  opts: { log?: boolean } = {},
): Promise<ShareView | null> {
  const link = await linkByToken(db, token);
  if (!link) return null;
  const closed = closedReason(link);
  if (opts.log !== false) await logOpen(db, link, "view", closed ?? "viewed", null, who);
  return {
    linkId: link.id,
    kind: link.kind,
    hasPassword: link.passwordHash !== null,
    files: closed ? [] : await filesOf(db, link),
    closed,
  };
}

export type DownloadResult =
  | { ok: true; file: SharedFile }
  | {
      ok: false;
      status: 401 | 403 | 404 | 410;
      reason: "unknown" | "password_required" | "wrong_password" | "revoked" | "expired" | "used_up" | "not_available";
    }
  | {
      ok: false;
      status: 429;
      /** `locked_out`: too many wrong passwords for the link or from the address; `busy`: too many checks at once. */
      reason: "locked_out" | "busy";
      retryAfterSeconds: number;
    };

type Refusal = Extract<DownloadResult, { ok: false; status: 401 | 403 | 404 | 410 }>;

/**
 * A download through a share link: the password (Argon2id) is checked first — unless the link or
 * the address is locked out after too many wrong ones, or too many checks are running (429, no
 * hash: ./share-throttle.ts) — then one use is
 * taken by a single guarded UPDATE (not revoked, not expired, uses below maxUses), so concurrent
 * downloads of a one-time link yield exactly one success. The open is logged and
 * `share_link.opened` emitted in the same transaction as the use.
 */
export async function downloadShare(
  db: DbOrTx,
  token: string,
  opts: { password?: string | null; objectId?: string | null },
  who: Visitor,
): Promise<DownloadResult> {
  const link = await linkByToken(db, token);
  if (!link) return { ok: false, status: 404, reason: "unknown" };
  const files = await filesOf(db, link);
  const file = opts.objectId
    ? files.find((f) => f.id === opts.objectId)
    : link.kind === "object"
      ? files[0]
      : undefined;
  const refuse = async (status: Refusal["status"], reason: Refusal["reason"]): Promise<DownloadResult> => {
    await logOpen(db, link, "download", reason, file?.id ?? null, who);
    return { ok: false, status, reason };
  };
  const tooMany = async (reason: "locked_out" | "busy", retryAfterSeconds: number): Promise<DownloadResult> => {
    await logOpen(db, link, "download", reason, file?.id ?? null, who);
    return { ok: false, status: 429, reason, retryAfterSeconds };
  };
  if (!file) return refuse(404, "not_available");
  if (link.passwordHash) {
    if (!opts.password) return refuse(401, "password_required");
    const locked = await shareLockout(db, link.id, who.ip);
    if (locked !== null) return tooMany("locked_out", locked);
    const release = claimPasswordCheck(link.id);
    if (!release) return tooMany("busy", 1);
    try {
      if (!(await verifyPassword(link.passwordHash, opts.password))) {
        // Counted before the slot is released, so the next check of the link sees this failure.
        await recordShareFailure(db, link.id, who.ip);
        return refuse(403, "wrong_password");
      }
    } finally {
      release();
    }
  }
  const taken = await db.transaction(async (tx) => {
    const [used] = await tx
      .update(shareLinks)
      .set({ usesCount: sql`${shareLinks.usesCount} + 1` })
      .where(
        and(
          eq(shareLinks.id, link.id),
          isNull(shareLinks.revokedAt),
          or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, sql`now()`)),
          or(isNull(shareLinks.maxUses), lt(shareLinks.usesCount, shareLinks.maxUses)),
        ),
      )
      .returning({ usesCount: shareLinks.usesCount });
    if (!used) return null;
    await logOpen(tx, link, "download", "downloaded", file.id, who);
    await appendEvent(tx, {
      orgId: link.orgId,
      type: "share_link.opened",
      partitionKey: `share_link:${link.id}`,
      data: {
        shareLinkId: link.kind === "object" ? shareLinkPublicId(link.id) : null,
        bundleId: link.kind === "bundle" ? link.id : null,
        objectId: file.id,
        filename: file.filename,
        usesCount: used.usesCount,
        maxUses: link.maxUses,
        ip: who.ip,
      },
    });
    return used;
  });
  if (taken) return { ok: true, file };
  // Lost the race or the link closed: say why, from the row as it is now.
  const [now] = await db.select().from(shareLinks).where(eq(shareLinks.id, link.id));
  const reason = (now && closedReason(now)) ?? "used_up";
  return refuse(410, reason as "revoked" | "expired" | "used_up");
}

/** `/s/{token}` and `/d/{token}` as they appear in a message body (any host: the token decides). */
const SHARE_TOKEN_IN_TEXT = /\/[sd]\/([A-Za-z0-9_-]{16,64})/g;

const MAX_TOKENS_LOOKED_UP = 200;

/**
 * The open share link — of the object itself, or a bundle holding it; not revoked, expired or used
 * up — whose URL appears in one of `bodies`, as its public id; null when there is none. A send's
 * `delivery: "link"` needs one (the service never edits the body to add it).
 */
export async function shareLinkInBodies(
  db: DbOrTx,
  orgId: string,
  objectId: string,
  bodies: (string | null)[],
): Promise<string | null> {
  const tokens = new Set<string>();
  for (const body of bodies)
    for (const m of body?.matchAll(SHARE_TOKEN_IN_TEXT) ?? [])
      if (m[1] && tokens.size < MAX_TOKENS_LOOKED_UP) tokens.add(m[1]);
  if (tokens.size === 0) return null;
  const rows = await db
    .select()
    .from(shareLinks)
    .where(
      and(
        eq(shareLinks.orgId, orgId),
        inArray(shareLinks.tokenHash, [...tokens].map(hashToken)),
        or(eq(shareLinks.objectId, objectId), sql`${objectId}::uuid = any(${shareLinks.objectIds})`),
      ),
    );
  const open = rows.find((r) => closedReason(r) === null);
  if (!open) return null;
  return open.kind === "object" ? toShareLink(open).id : toShareBundle(open).id;
}
