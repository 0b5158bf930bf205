import { headers } from "next/headers";
import { env, publicBaseUrl } from "@/lib/env";

/**
 * The base URL of the API as a reader of this page reaches it: `PUBLIC_BASE_URL` when set, else the
 * origin of the request (its `Host`, and `X-Forwarded-Proto` behind a proxy). Shown on pages only
 * (the API reference, Settings): links sent by email never use the request's host.
 */
export async function pageBaseUrl(): Promise<string> {
  if (env.PUBLIC_BASE_URL) return publicBaseUrl();
  const h = await headers();
  const host = h.get("host");
  if (!host || !/^[a-z0-9.[\]:-]+$/i.test(host)) return publicBaseUrl();
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https" ? "https" : "http";
  return `${proto}://${host}`;
}
