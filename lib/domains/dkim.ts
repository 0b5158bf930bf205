import { createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import type { DbOrTx } from "@/db";
import { settingOnce } from "@/lib/settings";

export interface DkimKey {
  selector: string;
  privateKey: string;
  publicKey: string;
}

/** A fresh 2048-bit RSA key pair with a dated selector (`svc<yyyymm><rand>`). */
export function generateDkimKey(now: Date = new Date()): DkimKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const stamp = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
  return {
    selector: `svc${stamp}${randomBytes(2).toString("hex")}`,
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/** The `p=` value of the DKIM record: the public key, DER, base64. */
export function dkimRecordValue(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
  return `v=DKIM1; k=rsa; p=${der.toString("base64")}`;
}

/** The deployment's key for the shared domain, generated once and kept in system settings. */
export function sharedDomainKey(db: DbOrTx): Promise<DkimKey> {
  return settingOnce(db, "shared_domain_dkim", () => generateDkimKey());
}
