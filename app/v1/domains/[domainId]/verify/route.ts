import { handle, route } from "@/lib/api/kernel";
import * as c from "@/lib/contracts/domains";
import { verifyDomain } from "@/lib/domains/service";

export const { GET, POST, PUT, PATCH, DELETE } = route(
  handle(c.verifyDomain, ({ db, principal, params }) => verifyDomain(db, principal, params.domainId)),
);
