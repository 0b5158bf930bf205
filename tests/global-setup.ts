import fs from "node:fs";
import { startDnsServerOnFreePort } from "./dns-server";

/**
 * Runs once before the suite: starts the loopback DNS server every test process queries, and on
 * PostgreSQL applies the migrations a single time so that workers starting together do not all
 * migrate (they would wait on the advisory lock anyway).
 */
export default async function setup({
  config,
}: {
  config: { env?: Record<string, string> };
}): Promise<() => Promise<void>> {
  const env = config.env ?? {};
  const zone = env.DNS_TEST_ZONE ?? "";
  Object.assign(process.env, { DNS_TEST_ZONE: zone });
  fs.writeFileSync(zone, "");
  const dns = await startDnsServerOnFreePort();
  // Workers are started after this and inherit the main process's environment.
  process.env.DNS_SERVERS = `127.0.0.1:${dns.port}`;
  if (process.env.DATABASE_URL) {
    const { getDbHandle, closeDb } = await import("@/db");
    await getDbHandle();
    await closeDb();
  }
  return async () => {
    await dns.close();
    fs.rmSync(zone, { force: true });
    for (const dir of [env.STORAGE_DIR, env.OUTBOX_DIR]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
}
