import { createPrivateKey, type KeyObject } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";
import type { DbOrTx } from "@/db";
import { signingKeys, type PublicJwk } from "@/db/schema";
import { signArtifactWith, type Signed } from "./artifact";
import { type JwksKey, jwksKey } from "./jwk";
import { openSecret, sealSecret } from "./secrets";

/**
 * Ed25519 signing keys (generated with `jose`, private halves sealed at rest). `kid` is the
 * RFC 7638 SHA-256 thumbprint of the public JWK, so anyone can recompute it from the key.
 */

export type SigningKeyRow = typeof signingKeys.$inferSelect;

export interface GeneratedKey {
  kid: string;
  publicJwk: PublicJwk;
  /** The private JWK (`d` included). Seal it before it goes anywhere. */
  privateJwk: PublicJwk & { d: string };
}

export async function generateEd25519(): Promise<GeneratedKey> {
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const pub = await exportJWK(publicKey);
  const priv = await exportJWK(privateKey);
  if (pub.kty !== "OKP" || pub.crv !== "Ed25519" || !pub.x || !priv.d) throw new Error("unexpected Ed25519 JWK shape");
  const publicJwk: PublicJwk = { kty: "OKP", crv: "Ed25519", x: pub.x };
  return { kid: await calculateJwkThumbprint(publicJwk, "sha256"), publicJwk, privateJwk: { ...publicJwk, d: priv.d } };
}

/** The JWKS entry of a stored key. */
export const jwksKeyOf = (row: { kid: string; publicJwk: PublicJwk }): JwksKey => jwksKey(row.kid, row.publicJwk.x);

/** The context a private key is sealed under: its row cannot lend it to another kid. */
const sealContext = (kid: string) => `signing_key:${kid}`;

/** Stores a new key (sealed) in the caller's transaction. */
export async function insertSigningKey(
  tx: DbOrTx,
  owner: { purpose: "service" } | { purpose: "agent"; orgId: string; agentId: string },
): Promise<SigningKeyRow | null> {
  const key = await generateEd25519();
  const privateKeyEnc = await sealSecret(tx, JSON.stringify(key.privateJwk), sealContext(key.kid));
  const [row] = await tx
    .insert(signingKeys)
    .values({
      kid: key.kid,
      purpose: owner.purpose,
      orgId: owner.purpose === "agent" ? owner.orgId : null,
      agentId: owner.purpose === "agent" ? owner.agentId : null,
      publicJwk: key.publicJwk,
      privateKeyEnc,
    })
    // The service key: another process may have created it a moment ago (one active, by index).
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

/** A key that can sign: its kid and the private key, opened from its sealed form. */
export interface Signer {
  kid: string;
  publicJwk: PublicJwk;
  privateKey: KeyObject;
}

const signers = new Map<string, Signer>();

export async function signerFor(db: DbOrTx, row: SigningKeyRow): Promise<Signer> {
  const cached = signers.get(row.kid);
  if (cached) return cached;
  const jwk = JSON.parse(
    (await openSecret(db, row.privateKeyEnc, sealContext(row.kid))).toString("utf8"),
  ) as GeneratedKey["privateJwk"];
  if (jwk.x !== row.publicJwk.x)
    throw new Error(`signing key ${row.kid}: sealed private key does not match the public key`);
  const signer = {
    kid: row.kid,
    publicJwk: row.publicJwk,
    privateKey: createPrivateKey({ key: { ...jwk }, format: "jwk" }),
  };
  signers.set(row.kid, signer);
  return signer;
}

/** The service's own artifact-signing key (manifests, deletion certificates), made on first use. */
export async function serviceSigner(db: DbOrTx): Promise<Signer> {
  const find = async () =>
    (
      await db
        .select()
        .from(signingKeys)
        .where(and(eq(signingKeys.purpose, "service"), eq(signingKeys.status, "active")))
        .limit(1)
    )[0];
  const row = (await find()) ?? (await insertSigningKey(db, { purpose: "service" })) ?? (await find());
  if (!row) throw new Error("service signing key missing after insert");
  return signerFor(db, row);
}

/** A key by kid (any status), or null. */
export async function findSigningKey(db: DbOrTx, kid: string): Promise<SigningKeyRow | null> {
  return (await db.select().from(signingKeys).where(eq(signingKeys.kid, kid)).limit(1))[0] ?? null;
}

/** Public keys of the given statuses (default: active), service key first. */
export async function listSigningKeys(
  db: DbOrTx,
  statuses: SigningKeyRow["status"][] = ["active"],
): Promise<SigningKeyRow[]> {
  const rows = await db.select().from(signingKeys).where(inArray(signingKeys.status, statuses));
  return rows.sort((a, b) =>
    a.purpose === b.purpose ? a.createdAt.getTime() - b.createdAt.getTime() : a.purpose === "service" ? -1 : 1,
  );
}

/** Signs an artifact with the service's artifact-signing key. */
export async function signArtifact<T extends Record<string, unknown>>(db: DbOrTx, fields: T): Promise<Signed<T>> {
  return signArtifactWith(await serviceSigner(db), fields);
}
