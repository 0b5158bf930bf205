import { hash, verify } from "@node-rs/argon2";

/**
 * Console passwords: Argon2id (memory-hard) via @node-rs/argon2 with OWASP's recommended floor of
 * 19 MiB memory, 2 iterations, 1 lane. The encoded hash carries its parameters, so raising them
 * later keeps old hashes verifiable.
 */
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  try {
    return await verify(encoded, password);
  } catch {
    return false;
  }
}

/** A fixed hash to verify against when the user does not exist, so timing does not reveal it. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword("decoy-password-never-valid");
  return decoy;
}
