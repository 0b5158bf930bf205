import { createHash, randomBytes } from "node:crypto";
import { env, inngestHosted, internalUrl, publicBaseUrl } from "@/lib/env";
import { checkpointFetch } from "@/lib/workflows/executor/checkpoint";

/**
 * Where workflows run and with which keys. Hosted (INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY):
 * Inngest runs them. Embedded (the default): the app's own executor, reached at the app's
 * internal URL. The embedded executor always signs its calls to `serve()` and requires the event
 * key on its event API, so nobody else can run functions or inject events: with no configured
 * signing key each process makes its own (several processes sharing PostgreSQL must share one,
 * through INNGEST_SIGNING_KEY).
 */
export interface WorkflowKeys {
  eventKey: string;
  signingKey: string;
}

const KEYS = Symbol.for("svc.workflows.keys");
type Holder = { [KEYS]?: WorkflowKeys };

export function workflowKeys(): WorkflowKeys {
  const holder = globalThis as Holder;
  holder[KEYS] ??= {
    eventKey: env.INNGEST_EVENT_KEY ?? `embedded-${randomBytes(24).toString("hex")}`,
    signingKey: env.INNGEST_SIGNING_KEY ?? `signkey-embedded-${randomBytes(32).toString("hex")}`,
  };
  return holder[KEYS];
}

/**
 * Options for `new Inngest(...)`: the same SDK calls in every mode, pointed at different servers.
 * Embedded, the client's `fetch` answers the SDK's step checkpoints in-process (checkpoint.ts).
 */
export function inngestClientOptions(): {
  isDev: boolean;
  eventKey?: string;
  signingKey?: string;
  baseUrl?: string;
  fetch?: typeof fetch;
} {
  if (inngestHosted() && !(env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY)) {
    // The Inngest dev server: no keys; its URL from INNGEST_DEV (when a URL) or INNGEST_BASE_URL.
    const url = env.INNGEST_DEV && /^https?:\/\//.test(env.INNGEST_DEV) ? env.INNGEST_DEV : env.INNGEST_BASE_URL;
    return { isDev: true, ...(url ? { baseUrl: url } : {}) };
  }
  if (inngestHosted()) {
    return {
      isDev: false,
      eventKey: env.INNGEST_EVENT_KEY ?? "",
      signingKey: env.INNGEST_SIGNING_KEY ?? "",
      baseUrl: env.INNGEST_BASE_URL,
    };
  }
  const keys = workflowKeys();
  const baseUrl = `${internalUrl()}/`;
  return {
    isDev: false,
    eventKey: keys.eventKey,
    signingKey: keys.signingKey,
    baseUrl,
    fetch: checkpointFetch(baseUrl, `Bearer ${hashedSigningKey(keys.signingKey)}`),
  };
}

/** The bearer token the SDK sends when it registers: `signkey-<env>-` + sha256 of the key's hex bytes. */
export function hashedSigningKey(signingKey: string): string {
  const m = /^(signkey-[a-z0-9]+-)(.*)$/i.exec(signingKey);
  if (!m) return signingKey;
  return `${m[1]}${createHash("sha256")
    .update(Buffer.from(m[2] ?? "", "hex"))
    .digest("hex")}`;
}

/** Where the app's `serve()` endpoint lives (path fixed by app/api/inngest/route.ts). */
export const SERVE_PATH = "/api/inngest";

/**
 * The URL the workflow server must call to run the app's functions, fixed from configuration and
 * never taken from a request: embedded, this process's own `INTERNAL_URL`; with Inngest,
 * `INNGEST_SERVE_ORIGIN` (else `PUBLIC_BASE_URL`, else `INTERNAL_URL`).
 */
export function serveUrl(): string {
  const origin = inngestHosted() ? (env.INNGEST_SERVE_ORIGIN ?? publicBaseUrl()) : internalUrl();
  return `${origin.replace(/\/$/, "")}${SERVE_PATH}`;
}

/**
 * Options for `serve()` that close the sync to outsiders: the origin and path it registers are
 * fixed (the SDK otherwise builds them from the request's Host header), and every request to the
 * endpoint, the `PUT` sync included, must carry a valid `X-Inngest-Signature` (in cloud mode, which
 * the embedded executor uses too; the Inngest dev server does not sign).
 */
export function serveOptions(url: string = serveUrl()): {
  serveOrigin: string;
  servePath: string;
  enableUnauthedSync: false;
} {
  const u = new URL(url);
  return { serveOrigin: u.origin, servePath: u.pathname, enableUnauthedSync: false };
}

/** Origin and path of a serve URL (what two serve URLs must share to be the same endpoint). */
export function sameEndpoint(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname.replace(/\/$/, "") === y.pathname.replace(/\/$/, "");
  } catch {
    return false;
  }
}
