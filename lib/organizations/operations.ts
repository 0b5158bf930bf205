import { getUser } from "@/lib/account/users";
import { notPermitted } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import { log } from "@/lib/log";
import * as orgs from "./console";
import * as c from "./contracts";
import { acceptInvitation as accept } from "./invitations";

/** Operations of a signed-in console user (session access): each service checks the caller's role. */

export const listOrganizations = defineOperation(c.listOrganizations, ({ db, principal }) =>
  orgs.myOrganizations(db, principal),
);
export const createOrganization = defineOperation(c.createOrganization, ({ db, principal, body }) =>
  orgs.newOrganization(db, principal, body),
);
export const listMembers = defineOperation(c.listMembers, ({ db, principal, params }) =>
  orgs.membersOf(db, principal, params.orgId),
);
export const createInvitation = defineOperation(c.createInvitation, ({ db, principal, params, body }) =>
  orgs.inviteMember(db, principal, params.orgId, body),
);
export const updateMember = defineOperation(c.updateMember, ({ db, principal, params, body }) =>
  orgs.changeRole(db, principal, params.orgId, params.userId, body.role),
);
export const removeMember = defineOperation(c.removeMember, ({ db, principal, params }) =>
  orgs.removeFromOrganization(db, principal, params.orgId, params.userId),
);

const consoleOnly = { http: false, mcp: false, cli: false } as const;

export const revokeInvitation = defineOperation(
  c.revokeInvitation,
  ({ db, principal, params }) => orgs.withdrawInvitation(db, principal, params.orgId, params.invitationId),
  { surfaces: consoleOnly },
);

/** The invited address must be the signed-in user's (read from the database, not the session). */
export const acceptInvitation = defineOperation(
  c.acceptInvitation,
  async ({ db, principal, body }) => {
    const user = await getUser(db, principal.userId);
    if (!user) throw notPermitted("Sign in again; this account no longer exists.");
    return accept(db, body.token, user);
  },
  { surfaces: consoleOnly },
);

export const renameOrganization = defineOperation(c.renameOrganization, ({ db, principal, params, body }) =>
  orgs.renameOrganization(db, principal, params.orgId, body.name),
);

export const deleteOrganization = defineOperation(
  c.deleteOrganization,
  async ({ db, principal, params, body }) => {
    await orgs.deleteOrganization(db, principal, params.orgId, body.confirm);
    log.info("organization deleted", { actor: principal.actor, orgId: params.orgId });
    return { deleted: true as const, orgId: params.orgId };
  },
  {
    audit: { none: "the organization's audit log is deleted with it; the deletion goes to the server log" },
    surfaces: consoleOnly,
  },
);
