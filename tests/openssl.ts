import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** `openssl pkeyutl -verify` on raw Ed25519: true when openssl says the signature verifies. */
export function opensslVerify(pem: string, message: Buffer, signature: Buffer): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-openssl-"));
  const id = randomBytes(6).toString("hex");
  const [key, msg, sig] = ["key.pem", "msg.bin", "sig.bin"].map((f) => path.join(dir, `${id}-${f}`)) as [
    string,
    string,
    string,
  ];
  fs.writeFileSync(key, pem);
  fs.writeFileSync(msg, message);
  fs.writeFileSync(sig, signature);
  try {
    const out = execFileSync(
      "openssl",
      ["pkeyutl", "-verify", "-pubin", "-inkey", key, "-rawin", "-in", msg, "-sigfile", sig],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    return out.includes("Signature Verified Successfully");
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
