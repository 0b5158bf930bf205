import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/organizations";
import { membersOf } from "@/lib/organizations/console";

export const { GET, POST, PUT, PATCH, DELETE } = route(handle(c.listMembers, ({ db, principal, params }) => membersOf(db, principal, params.orgId)));
