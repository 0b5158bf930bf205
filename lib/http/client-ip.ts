import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Route handlers cannot see the TCP socket, so the server (server.ts) resolves the client address
 * from the socket (and from X-Forwarded-For only when TRUST_PROXY says so), strips any copy of these
 * headers the client sent, and passes the address in. A per-process token proves the header was set
 * by this server and not by a client; without it the address is unknown and allowlists deny.
 */
export const CLIENT_IP_HEADER = "x-svc-client-ip";
export const SERVER_TOKEN_HEADER = "x-svc-server-token";

const TOKEN = Symbol.for("svc.serverToken");
type Holder = { [TOKEN]?: string };

export function serverToken(): string {
  const holder = globalThis as Holder;
  holder[TOKEN] ??= randomBytes(24).toString("base64url");
  return holder[TOKEN];
}

/**
 * The client address: the socket peer, or with `trustedHops` proxies in front, the address the
 * outermost trusted proxy saw (counted from the right of X-Forwarded-For, which clients can forge
 * on the left).
 */
export function resolveClientIp(
  socketIp: string | undefined,
  forwardedFor: string | undefined,
  trustedHops: number,
): string | null {
  const chain = [
    ...(trustedHops > 0 && forwardedFor
      ? forwardedFor
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : []),
    ...(socketIp ? [socketIp] : []),
  ];
  if (chain.length === 0) return null;
  return chain[Math.max(0, chain.length - 1 - trustedHops)] ?? null;
}

/** Sets the trusted headers on an incoming request's header bag (strips client-sent copies). */
export function stampClientIp(headers: Record<string, string | string[] | undefined>, ip: string | null): void {
  delete headers[CLIENT_IP_HEADER];
  delete headers[SERVER_TOKEN_HEADER];
  if (ip) {
    headers[CLIENT_IP_HEADER] = ip;
    headers[SERVER_TOKEN_HEADER] = serverToken();
  }
}

/** The client address stamped by this process's server, or null. */
export function readClientIp(headers: Headers): string | null {
  const ip = headers.get(CLIENT_IP_HEADER);
  const token = headers.get(SERVER_TOKEN_HEADER);
  if (!ip || !token) return null;
  const a = Buffer.from(token);
  const b = Buffer.from(serverToken());
  return a.length === b.length && timingSafeEqual(a, b) ? ip : null;
}
