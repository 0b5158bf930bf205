import ipaddr from "ipaddr.js";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { type AddressPolicy, addressProblem } from "./address-policy";
import { resolveHost } from "./resolve";

/**
 * The one guarded outbound HTTP client. Every connection it opens — the first request, a kept-alive
 * reconnect, a redirect — goes through `guardedConnect`: the host is resolved once, every address
 * it has is checked against the address policy (one refused address refuses the host), and the
 * socket connects to that checked address (TLS still verifies the certificate against the host
 * name). There is no second lookup between the check and the connection for DNS rebinding to
 * answer differently.
 */
export class OutboundRefused extends Error {
  readonly code = "SVC_OUTBOUND_REFUSED";
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefused";
  }
}

/** Resolves `host` and returns the address to connect to, or throws `OutboundRefused`. */
export async function checkedAddress(host: string, policy: AddressPolicy): Promise<string> {
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch (err) {
    throw new OutboundRefused(`host ${host} does not resolve (${err instanceof Error ? err.message : String(err)})`);
  }
  for (const address of addresses) {
    const problem = addressProblem(address, policy);
    if (problem) throw new OutboundRefused(`host ${host} resolves to a refused address: ${problem}`);
  }
  const [first] = addresses;
  if (!first) throw new OutboundRefused(`host ${host} does not resolve`);
  return first;
}

const CONNECT_TIMEOUT_MS = 10_000;

/** An undici connector that connects only to an address `checkedAddress` returned. */
export function guardedConnect(policy: AddressPolicy): buildConnector.connector {
  const base = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, "");
    checkedAddress(host, policy).then(
      (address) =>
        base(
          {
            ...options,
            hostname: address,
            servername: options.servername ?? (ipaddr.isValid(host) ? undefined : host),
          },
          callback,
        ),
      (err: Error) => callback(err, null),
    );
  };
}

const agents = new Map<boolean, Agent>();

/** The process's agent for a policy (connections are pooled per origin, as with `fetch`). */
export function guardedAgent(policy: AddressPolicy): Agent {
  let agent = agents.get(policy.allowLoopback);
  if (!agent) {
    agent = new Agent({ connect: guardedConnect(policy), connections: 16 });
    agents.set(policy.allowLoopback, agent);
  }
  return agent;
}

export interface OutboundInit extends RequestInit {
  /** Allow loopback addresses (development: WEBHOOK_ALLOW_LOOPBACK_HTTP). Default false. */
  allowLoopback?: boolean;
}

/**
 * `fetch` through the guard: http(s) only, redirects not followed unless asked (`redirect:
 * "follow"` is still guarded hop by hop), and a refused address rejects with `OutboundRefused`.
 */
export async function outboundFetch(url: string | URL, init: OutboundInit = {}): ReturnType<typeof fetch> {
  const { allowLoopback = false, ...rest } = init;
  const target = new URL(url);
  if (target.protocol !== "https:" && target.protocol !== "http:")
    throw new OutboundRefused(`${target.protocol} URLs are not fetched`);
  if (target.username || target.password) throw new OutboundRefused("URLs with credentials are not fetched");
  try {
    const res = await undiciFetch(target, {
      ...(rest as object),
      redirect: rest.redirect ?? "manual",
      dispatcher: guardedAgent({ allowLoopback }),
    });
    return res as unknown as Awaited<ReturnType<typeof fetch>>; // undici's own Response class; same interface
  } catch (err) {
    // undici reports a connector failure as TypeError("fetch failed", { cause }).
    const cause = err instanceof Error ? err.cause : undefined;
    if (cause instanceof OutboundRefused) throw cause;
    throw err;
  }
}
