import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as create from "./create";
import * as remove from "./delete";
import * as read from "./read";
import * as update from "./update";
import * as verify from "./verify";

export const listDomains = defineOperation(c.listDomains, ({ db, principal }) => read.listDomains(db, principal));
export const createDomain = defineOperation(c.createDomain, ({ db, principal, body }) =>
  create.createDomain(db, principal, body),
);
export const getDomain = defineOperation(c.getDomain, ({ db, principal, params }) =>
  read.getDomain(db, principal, params.domainId),
);
export const verifyDomain = defineOperation(c.verifyDomain, ({ db, principal, params }) =>
  verify.verifyDomain(db, principal, params.domainId),
);
export const updateDomain = defineOperation(c.updateDomain, ({ db, principal, params, body }) =>
  update.updateDomain(db, principal, params.domainId, body),
);
export const deleteDomain = defineOperation(c.deleteDomain, ({ db, principal, params }) =>
  remove.deleteDomain(db, principal, params.domainId),
);
