import type { Contract } from "@/lib/api/contract";
import * as account from "./account";
import * as apiKeys from "./api-keys";
import * as domains from "./domains";
import * as events from "./events";
import * as inboxes from "./inboxes";
import * as messages from "./messages";
import * as meta from "./meta";
import * as organizations from "./organizations";
import * as providers from "./providers";
import * as webhooks from "./webhooks";

function collect(...modules: Record<string, unknown>[]): Contract[] {
  const out: Contract[] = [];
  for (const m of modules) {
    for (const value of Object.values(m)) {
      if (value && typeof value === "object" && "method" in value && "path" in value && "access" in value) out.push(value as Contract);
    }
  }
  return out;
}

/** Every operation of the API. The OpenAPI document and the security suite are generated from it. */
export const CONTRACTS: readonly Contract[] = collect(account, apiKeys, domains, events, inboxes, messages, organizations, providers, webhooks, meta);
