import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as domains from "./service";

export const listDomains = defineOperation(c.listDomains, ({ db, principal }) => domains.listDomains(db, principal));
export const createDomain = defineOperation(c.createDomain, ({ db, principal, body }) => domains.createDomain(db, principal, body));
export const getDomain = defineOperation(c.getDomain, ({ db, principal, params }) => domains.getDomain(db, principal, params.domainId));
export const verifyDomain = defineOperation(c.verifyDomain, ({ db, principal, params }) => domains.verifyDomain(db, principal, params.domainId));
export const updateDomain = defineOperation(c.updateDomain, ({ db, principal, params, body }) => domains.updateDomain(db, principal, params.domainId, body));
export const deleteDomain = defineOperation(c.deleteDomain, ({ db, principal, params }) => domains.deleteDomain(db, principal, params.domainId));
