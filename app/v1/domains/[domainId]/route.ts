import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/domains";
import { deleteDomain, getDomain, updateDomain } from "@/lib/domains/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.getDomain, ({ db, principal, params }) => getDomain(db, principal, params.domainId)),
  handle(c.updateDomain, ({ db, principal, params, body }) => updateDomain(db, principal, params.domainId, body)),
  handle(c.deleteDomain, ({ db, principal, params }) => deleteDomain(db, principal, params.domainId)),
);
