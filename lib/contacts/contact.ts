import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { contactHandles, contacts, organizations } from "@/db/schema";
import { ApiError, notFound, uniqueViolation } from "@/lib/core/errors";
import { type HandleChannel } from "./handles";
import { isUuid } from "@/lib/core/schemas";

export type ContactRow = typeof contacts.$inferSelect;

export type HandleRow = typeof contactHandles.$inferSelect;

export type ContactRef = { kind: "id"; id: string } | { kind: "alias"; alias: string } | { kind: "self" };

/** `@me`, `@alias`, `contact:<id>` or a bare id; null when the text is none of them. */
export function parseContactRef(ref: string): ContactRef | null {
  if (ref === "@me") return { kind: "self" };
  if (ref.startsWith("@") && ref.length > 1) return { kind: "alias", alias: ref.slice(1).toLowerCase() };
  const id = ref.startsWith("contact:") ? ref.slice("contact:".length) : ref;
  return isUuid(id) ? { kind: "id", id: id.toLowerCase() } : null;
}

export function toHandle(row: HandleRow) {
  return {
    object: "contact_handle" as const,
    id: row.id,
    contactId: row.contactId,
    channel: row.channel,
    value: row.value,
    label: row.label,
    isPrimary: row.isPrimary,
    verified: row.verified,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toContact(row: ContactRow, handles?: HandleRow[]) {
  return {
    object: "contact" as const,
    id: row.id,
    projectId: row.orgId,
    userId: null,
    displayName: row.displayName,
    kind: row.kind,
    isSelf: row.kind === "self",
    alias: row.alias,
    info: row.info,
    metadata: row.metadata,
    avatarUrl: row.avatarUrl,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(handles ? { handles: handles.map(toHandle) } : {}),
  };
}

/** The organization's `self` contact, made on first use (named after the organization). */
export async function selfContact(db: DbOrTx, orgId: string): Promise<ContactRow> {
  const [existing] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.kind, "self")))
    .limit(1);
  if (existing) return existing;
  const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
  await db
    .insert(contacts)
    .values({ orgId, kind: "self", displayName: org?.name ?? "Me" })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.kind, "self")))
    .limit(1);
  if (!row) throw new Error("self contact was not created");
  return row;
}

/** The contact a reference names in the organization; 404 naming `param` otherwise. */
export async function findContact(db: DbOrTx, orgId: string, ref: string, param = "contactRef"): Promise<ContactRow> {
  const parsed = parseContactRef(ref);
  if (!parsed) throw notFound("contact", param);
  if (parsed.kind === "self") return selfContact(db, orgId);
  const [row] = await db
    .select()
    .from(contacts)
    .where(
      and(
        eq(contacts.orgId, orgId),
        parsed.kind === "id" ? eq(contacts.id, parsed.id) : eq(contacts.alias, parsed.alias),
      ),
    )
    .limit(1);
  if (!row) throw notFound("contact", param);
  return row;
}

export async function handlesOf(db: DbOrTx, contactId: string): Promise<HandleRow[]> {
  return db
    .select()
    .from(contactHandles)
    .where(eq(contactHandles.contactId, contactId))
    .orderBy(asc(contactHandles.createdAt), asc(contactHandles.id));
}

/** Turns a unique violation into the 409 the caller can act on. */
export function conflictOf(err: unknown, where: { alias?: string | null; handleParam?: string }): never {
  const constraint = uniqueViolation(err);
  if (constraint === null) throw err;
  if (constraint.includes("alias") || (!constraint && where.alias))
    throw new ApiError("conflict", `Another contact already has the alias "${where.alias}".`, "alias");
  throw new ApiError(
    "conflict",
    "Another contact of this organization already has this handle.",
    where.handleParam ?? "value",
  );
}

export type HandleInput = {
  channel: HandleChannel;
  value: string;
  label?: string;
  isPrimary: boolean;
  metadata?: Record<string, unknown>;
};
