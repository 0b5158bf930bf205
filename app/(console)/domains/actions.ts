"use server";

import { consoleAction } from "@/lib/console/action";
import * as contracts from "@/lib/contracts/domains";
import { createDomain, deleteDomain, verifyDomain } from "@/lib/domains/service";

/** Adds a domain (pending) and returns it with the DNS records to publish. */
export async function addDomainAction(input: unknown) {
  return consoleAction("domains:write", contracts.createDomain.body, input, (ctx, body) => createDomain(ctx.db, ctx.principal, body));
}

/** Looks the domain's records up in DNS now; the result carries per-record statuses. */
export async function checkDnsAction(input: unknown) {
  return consoleAction("domains:write", contracts.verifyDomain.params, input, (ctx, { domainId }) => verifyDomain(ctx.db, ctx.principal, domainId));
}

/** Deletes a domain no inbox uses (the shared domain is refused by the service). */
export async function deleteDomainAction(input: unknown) {
  return consoleAction("domains:write", contracts.deleteDomain.params, input, (ctx, { domainId }) => deleteDomain(ctx.db, ctx.principal, domainId));
}
