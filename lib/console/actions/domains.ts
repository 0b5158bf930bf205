"use server";

import { runAction } from "@/lib/console/action";
import { createDomain, deleteDomain, verifyDomain } from "@/lib/domains/operations";

/** Adds a domain (pending) and returns it with the DNS records to publish. */
export async function addDomainAction(input: unknown) {
  return runAction(createDomain, input, { labels: { name: "domain name" } });
}

/** Looks the domain's records up in DNS now; the result carries per-record statuses. */
export async function checkDnsAction(input: unknown) {
  return runAction(verifyDomain, input);
}

/** Deletes a domain no inbox uses (the shared domain is refused by the service). */
export async function deleteDomainAction(input: unknown) {
  return runAction(deleteDomain, input);
}
