import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/organizations";
import { inviteMember } from "@/lib/organizations/console";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.createInvitation, ({ db, principal, params, body }) => inviteMember(db, principal, params.orgId, body)));
