import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/domains";
import { createDomain, listDomains } from "@/lib/domains/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.listDomains, ({ db, principal }) => listDomains(db, principal)),
  handle(c.createDomain, ({ db, principal, body }) => createDomain(db, principal, body)),
);
