import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/organizations";
import { changeRole, removeFromOrganization } from "@/lib/organizations/console";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.updateMember, ({ db, principal, params, body }) => changeRole(db, principal, params.orgId, params.userId, body.role)),
  handle(c.removeMember, ({ db, principal, params }) => removeFromOrganization(db, principal, params.orgId, params.userId)),
);
