import { and, asc, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { memberships, organizations } from "@/db/schema";
import { insertApiKey } from "@/lib/api-keys/service";
import type { ApiKey } from "@/lib/api-keys/contracts";
import { SYSTEM_ACTOR } from "@/lib/core/audit";
import { createOrganization, findOrCreateUser } from "./service";

export interface BootstrapResult {
  secret: string;
  apiKey: ApiKey;
  organization: { id: string; name: string; slug: string };
  user: { id: string; email: string; created: boolean };
}

/**
 * First-run setup (and recovery): ensures the user and an organization they own, then creates an
 * `admin` API key and returns its secret once. Idempotent per email: a second run reuses the user
 * and their organization (the one named `orgName`, else the first they own) and adds a new key.
 */
export async function bootstrap(
  db: Db,
  input: { email: string; orgName: string; keyName?: string },
): Promise<BootstrapResult> {
  const who = SYSTEM_ACTOR("bootstrap");
  return db.transaction(async (tx) => {
    const user = await findOrCreateUser(tx, input.email);
    const owned = await tx
      .select({ id: organizations.id, name: organizations.name, slug: organizations.slug })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.orgId))
      .where(and(eq(memberships.userId, user.id), eq(memberships.role, "owner")))
      .orderBy(asc(memberships.createdAt));
    const organization =
      owned.find((o) => o.name === input.orgName) ??
      owned[0] ??
      (await createOrganization(tx, { name: input.orgName, ownerUserId: user.id }, who));
    const { apiKey, secret } = await insertApiKey(tx, who, {
      orgId: organization.id,
      userId: user.id,
      name: input.keyName ?? "bootstrap",
      scopes: ["admin"],
    });
    return {
      secret,
      apiKey,
      organization: { id: organization.id, name: organization.name, slug: organization.slug },
      user,
    };
  });
}
