import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/organizations";
import { myOrganizations, newOrganization } from "@/lib/organizations/console";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listOrganizations, ({ db, principal }) => myOrganizations(db, principal)),
  handle(c.createOrganization, ({ db, principal, body }) => newOrganization(db, principal, body)),
);
