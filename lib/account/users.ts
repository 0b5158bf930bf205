import { and, count, eq, isNotNull, isNull } from "drizzle-orm";
import type { z } from "zod";
import type { DbOrTx } from "@/db";
import { users } from "@/db/schema";
import { ApiError, invalidRequest, notPermitted } from "@/lib/core/errors";
import { env } from "@/lib/env";
import { hasPendingInvitation } from "@/lib/organizations/invitations";
import { normalizeEmail } from "@/lib/organizations/service";
import type { passwordChangeBody, signUpBody } from "./contracts";
import { decoyHash, hashPassword, verifyPassword } from "./passwords";

export interface ConsoleUser {
  id: string;
  email: string;
  name: string | null;
}

/** True until the first console user exists (a fresh install). */
export async function isFreshInstall(db: DbOrTx): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

/**
 * Creates a console account with an Argon2id password. In `CONSOLE_SIGNUP=invite` mode only the
 * first user and invited addresses may sign up. An address that already has an account is a 409:
 * setting a password on it here would let anyone take it over (its owner signs in by email link).
 */
export async function registerUser(db: DbOrTx, input: z.infer<typeof signUpBody>): Promise<ConsoleUser> {
  const email = normalizeEmail(input.email);
  if (env.CONSOLE_SIGNUP === "invite" && !(await isFreshInstall(db)) && !(await hasPendingInvitation(db, email))) {
    throw notPermitted("Sign-up is by invitation on this installation; ask an admin to invite you.", "email");
  }
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(users)
    .values({ email, name: input.name || null, passwordHash })
    .onConflictDoNothing()
    .returning({ id: users.id, email: users.email, name: users.name });
  if (!row)
    throw new ApiError(
      "conflict",
      "An account with this email already exists; sign in instead (an email link works if it has no password).",
      "email",
    );
  return row;
}

/** The user whose password matches, else null. Takes the same time whether or not the user exists. */
export async function verifyCredentials(db: DbOrTx, email: string, password: string): Promise<ConsoleUser | null> {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, normalizeEmail(email)));
  const ok = await verifyPassword(row?.passwordHash ?? (await decoyHash()), password);
  return row?.passwordHash && ok ? { id: row.id, email: row.email, name: row.name } : null;
}

/**
 * The first email-link sign-in of an account proves the address. If that account's password was
 * set before the address was ever proven (someone signed up with an address that is not theirs),
 * the password is cleared, so whoever chose it cannot sign in with it any more.
 */
export async function clearUnprovenPassword(db: DbOrTx, userId: string): Promise<boolean> {
  const cleared = await db
    .update(users)
    .set({ passwordHash: null })
    .where(and(eq(users.id, userId), isNull(users.emailVerified), isNotNull(users.passwordHash)))
    .returning({ id: users.id });
  return cleared.length > 0;
}

/** Whether the user can sign in with a password (the settings page offers to set one if not). */
export async function hasPassword(db: DbOrTx, userId: string): Promise<boolean> {
  const [row] = await db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  return Boolean(row?.hash);
}

/**
 * Sets the signed-in user's password. Changing an existing one needs the current one; setting the
 * first one (email-link users, or after an unproven password was cleared) needs only the session.
 */
export async function setPassword(
  db: DbOrTx,
  userId: string,
  input: z.infer<typeof passwordChangeBody>,
): Promise<null> {
  const [row] = await db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
  if (!row) throw notPermitted("No such user.");
  if (row.hash && !(input.currentPassword && (await verifyPassword(row.hash, input.currentPassword)))) {
    throw invalidRequest("The current password is not right.", "currentPassword");
  }
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(input.newPassword) })
    .where(eq(users.id, userId));
  return null;
}

export async function getUser(db: DbOrTx, userId: string): Promise<ConsoleUser | null> {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? null;
}
