import { createHash, randomBytes } from "node:crypto";
import { env, inngestHosted, internalUrl } from "@/lib/env";

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

/** Options for `new Inngest(...)`: the same SDK calls in every mode, pointed at different servers. */
export function inngestClientOptions(): { isDev: boolean; eventKey?: string; signingKey?: string; baseUrl?: string } {
  if (inngestHosted() && !(env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY)) {
    // The Inngest dev server: no keys; its URL from INNGEST_DEV (when a URL) or INNGEST_BASE_URL.
    const url = env.INNGEST_DEV && /^https?:\/\//.test(env.INNGEST_DEV) ? env.INNGEST_DEV : env.INNGEST_BASE_URL;
    return { isDev: true, ...(url ? { baseUrl: url } : {}) };
  }
  if (inngestHosted()) {
    return { isDev: false, eventKey: env.INNGEST_EVENT_KEY ?? "", signingKey: env.INNGEST_SIGNING_KEY ?? "", baseUrl: env.INNGEST_BASE_URL };
  }
  const keys = workflowKeys();
  return { isDev: false, eventKey: keys.eventKey, signingKey: keys.signingKey, baseUrl: `${internalUrl()}/` };
}

/** The bearer token the SDK sends when it registers: `signkey-<env>-` + sha256 of the key's hex bytes. */
export function hashedSigningKey(signingKey: string): string {
  const m = /^(signkey-[a-z0-9]+-)(.*)$/i.exec(signingKey);
  if (!m) return signingKey;
  return `${m[1]}${createHash("sha256").update(Buffer.from(m[2] ?? "", "hex")).digest("hex")}`;
}
