import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { calculateJwkThumbprint, createRemoteJWKSet, jwtVerify } from "jose";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { signingKeys, systemSettings } from "@/db/schema";
import { decodeKey, env } from "@/lib/env";
import {
  contentBodyHash,
  emailBodyHash,
  PROVENANCE_TYP,
  remoteJwks,
  signProvenance,
  verifyProvenance,
} from "@/lib/agents/provenance";
import { signingInput, verifyArtifact } from "@/lib/trust/artifact";
import { jcs, jsonSafe } from "@/lib/trust/jcs";
import { publicKeyPem } from "@/lib/trust/jwk";
import { insertSigningKey, jwksKeyOf, listSigningKeys, serviceSigner, signArtifact, signerFor } from "@/lib/trust/keys";
import {
  kekId,
  keyring,
  openSecret,
  openWith,
  resetKeyringForTests,
  rewrapSecret,
  SecretError,
  sealSecret,
  sealWith,
  sealedKekId,
} from "@/lib/trust/secrets";
import { newOrg } from "./harness";
import { opensslVerify } from "./openssl";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "svc-trust-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("secrets at rest", () => {
  test("SECRETS_KEY accepts 32 bytes as hex, base64 or base64url and nothing else", () => {
    const key = randomBytes(32);
    expect(decodeKey(key.toString("hex"))).toEqual(key);
    expect(decodeKey(key.toString("base64"))).toEqual(key);
    expect(decodeKey(key.toString("base64url"))).toEqual(key);
    expect(decodeKey(randomBytes(31).toString("hex"))).toBeNull();
    expect(decodeKey(randomBytes(16).toString("base64"))).toBeNull();
    expect(decodeKey("not a key")).toBeNull();
  });

  test("a sealed secret opens only with its key and its context, and any change is detected", () => {
    const a = { id: kekId(randomBytes(32)), key: randomBytes(32) };
    a.id = kekId(a.key);
    const b = { id: "", key: randomBytes(32) };
    b.id = kekId(b.key);
    const sealed = sealWith(a, "private key material", "signing_key:k1");
    expect(sealed).toMatch(/^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("private");
    expect(sealedKekId(sealed)).toBe(a.id);
    expect(openWith(new Map([[a.id, a]]), sealed, "signing_key:k1").toString()).toBe("private key material");
    // Another row's context: refused.
    expect(() => openWith(new Map([[a.id, a]]), sealed, "signing_key:k2")).toThrow(SecretError);
    // A KEK this deployment does not have: refused, naming the KEK id.
    expect(() => openWith(new Map([[b.id, b]]), sealed, "signing_key:k1")).toThrow(a.id);
    // A flipped bit anywhere in the payload or the wrapped key: refused.
    const parts = sealed.split(".");
    for (const i of [2, 3]) {
      const bytes = Buffer.from(parts[i] ?? "", "base64url");
      bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 1;
      const tampered = parts.map((p, j) => (j === i ? bytes.toString("base64url") : p)).join(".");
      expect(() => openWith(new Map([[a.id, a]]), tampered, "signing_key:k1")).toThrow(SecretError);
    }
    // The same KEK id claimed by a different key does not open it either.
    expect(() => openWith(new Map([[a.id, { id: a.id, key: b.key }]]), sealed, "signing_key:k1")).toThrow(SecretError);
    // Two seals of one value differ (fresh data key and IVs).
    expect(sealWith(a, "x", "c")).not.toBe(sealWith(a, "x", "c"));
  });

  test("without SECRETS_KEY the KEK is generated once and kept in system settings", async () => {
    const db = await getDb();
    resetKeyringForTests();
    const sealed = await sealSecret(db, "hello", "test:ctx");
    const [row] = await db.select().from(systemSettings).where(eq(systemSettings.key, "secrets_kek"));
    expect(typeof row?.value).toBe("string");
    expect(sealedKekId(sealed)).toBe(kekId(Buffer.from(row?.value as string, "hex")));
    resetKeyringForTests();
    expect((await openSecret(db, sealed, "test:ctx")).toString()).toBe("hello");
  });

  test("switching to SECRETS_KEY keeps old secrets readable, and rewrap moves them under the new key", async () => {
    const db = await getDb();
    resetKeyringForTests();
    const before = await sealSecret(db, "sealed before SECRETS_KEY", "test:rotate");
    const configured = randomBytes(32);
    const saved = env.SECRETS_KEY;
    env.SECRETS_KEY = configured.toString("base64");
    resetKeyringForTests();
    try {
      const ring = await keyring(db);
      expect(ring.active.id).toBe(kekId(configured));
      expect((await openSecret(db, before, "test:rotate")).toString()).toBe("sealed before SECRETS_KEY");
      const after = await sealSecret(db, "sealed with SECRETS_KEY", "test:rotate");
      expect(sealedKekId(after)).toBe(kekId(configured));
      const moved = await rewrapSecret(db, before, "test:rotate");
      expect(sealedKekId(moved)).toBe(kekId(configured));
      expect(await rewrapSecret(db, moved, "test:rotate")).toBe(moved);
      // Only the configured key now: the moved secret opens, the old one does not.
      const only = new Map([[kekId(configured), { id: kekId(configured), key: configured }]]);
      expect(openWith(only, moved, "test:rotate").toString()).toBe("sealed before SECRETS_KEY");
      expect(() => openWith(only, before, "test:rotate")).toThrow(SecretError);
    } finally {
      env.SECRETS_KEY = saved;
      resetKeyringForTests();
    }
  });
});

describe("signing keys", () => {
  test("keys are Ed25519 from jose, kid is the RFC 7638 thumbprint, the private half is stored only sealed", async () => {
    const db = await getDb();
    const org = await newOrg();
    const row = await insertSigningKey(db, { purpose: "agent", orgId: org.orgId, agentId: "agt_test1" });
    expect(row).not.toBeNull();
    if (!row) return;
    expect(row.kid).toBe(await calculateJwkThumbprint(row.publicJwk, "sha256"));
    expect(jwksKeyOf(row)).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      alg: "EdDSA",
      kid: row.kid,
      x: row.publicJwk.x,
      use: "sig",
    });
    expect(Object.keys(jwksKeyOf(row)).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    const signer = await signerFor(db, row);
    const d = signer.privateKey.export({ format: "jwk" }).d;
    expect(typeof d).toBe("string");
    const [stored] = await db.select().from(signingKeys).where(eq(signingKeys.kid, row.kid));
    expect(JSON.stringify(stored)).not.toContain(d as string);
    expect(stored?.privateKeyEnc).toMatch(/^v1\./);
  });

  test("concurrent first uses agree on one active service key", async () => {
    const db = await getDb();
    const signers = await Promise.all(Array.from({ length: 8 }, () => serviceSigner(db)));
    expect(new Set(signers.map((s) => s.kid)).size).toBe(1);
    const active = await db
      .select()
      .from(signingKeys)
      .where(and(eq(signingKeys.purpose, "service"), eq(signingKeys.status, "active")));
    expect(active).toHaveLength(1);
    expect((await listSigningKeys(db)).map((k) => k.kid)).toContain(signers[0]?.kid);
  });
});

describe("signed artifacts", () => {
  test("the signature covers the JCS form of every other field, verifies against the JWKS and with openssl", async () => {
    const db = await getDb();
    const artifact = await signArtifact(db, { type: "svc.test.v1", z: 1, a: { é: "ü", b: [3, 2, 1] }, note: "x" });
    expect(artifact.alg).toBe("EdDSA");
    expect(artifact.signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
    const key = jwksKeyOf(
      (await listSigningKeys(db)).find((k) => k.kid === artifact.kid) ??
        (() => {
          throw new Error("no key");
        })(),
    );
    expect(verifyArtifact(artifact, [key])).toEqual({ valid: true, kid: artifact.kid });
    // The signed bytes are exactly JCS without `signature` (alg and kid included).
    const { signature, ...rest } = artifact;
    expect(signingInput(artifact).toString()).toBe(jcs(rest));
    expect(signingInput(artifact).toString()).toContain('"alg":"EdDSA"');
    expect(opensslVerify(publicKeyPem(key), signingInput(artifact), Buffer.from(signature ?? "", "base64url"))).toBe(
      true,
    );
    // Tampering: a field, a nested value, a key order change (no effect: JCS), the kid, the signature.
    expect(verifyArtifact({ ...artifact, z: 2 }, [key])).toMatchObject({ valid: false, reason: "bad_signature" });
    expect(verifyArtifact({ ...artifact, a: { é: "ü", b: [1, 2, 3] } }, [key])).toMatchObject({
      valid: false,
      reason: "bad_signature",
    });
    expect(verifyArtifact({ ...artifact, extra: null }, [key])).toMatchObject({
      valid: false,
      reason: "bad_signature",
    });
    expect(verifyArtifact(Object.fromEntries(Object.entries(artifact).reverse()), [key])).toMatchObject({
      valid: true,
    });
    expect(verifyArtifact({ ...artifact, kid: "other" }, [key])).toMatchObject({ valid: false, reason: "unknown_key" });
    expect(verifyArtifact({ ...artifact, kid: "other" }, [{ ...key, kid: "other" }])).toMatchObject({
      valid: false,
      reason: "bad_signature",
    });
    expect(verifyArtifact({ ...artifact, signature: null }, [key])).toMatchObject({ valid: false, reason: "unsigned" });
    expect(
      opensslVerify(publicKeyPem(key), signingInput({ ...artifact, z: 2 }), Buffer.from(signature ?? "", "base64url")),
    ).toBe(false);
  });

  test("JCS follows RFC 8785 (key order by UTF-16 units, number forms) and jsonSafe makes values storable", () => {
    expect(jcs({ b: 1, a: [1e21, 0.1, -0, 1.5e-7], "\u20ac": 1, "\ud83d\ude00": 2, "\ufb33": 3 })).toBe(
      '{"a":[1e+21,0.1,0,1.5e-7],"b":1,"\u20ac":1,"\ud83d\ude00":2,"\ufb33":3}',
    );
    expect(() => jcs(undefined)).toThrow();
    expect(() => jcs({ x: Number.NaN })).toThrow();
    expect(jsonSafe({ a: "x\u0000y", b: "\ud800", ["k\u0000"]: 1, d: new Date(0), u: undefined })).toEqual({
      a: "x\uFFFDy",
      b: "\uFFFD",
      "k\uFFFD": 1,
      d: "1970-01-01T00:00:00.000Z",
    });
  });
});

describe("provenance", () => {
  let server: http.Server;
  let base = "";
  let jwksBody = "";

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/v1/agents/jwks") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(jwksBody);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function agentKey() {
    const db = await getDb();
    const org = await newOrg();
    const row = await insertSigningKey(db, { purpose: "agent", orgId: org.orgId, agentId: "agt_prov1" });
    if (!row) throw new Error("no key");
    jwksBody = JSON.stringify({ keys: (await listSigningKeys(db)).map(jwksKeyOf) });
    return { db, row, signer: await signerFor(db, row) };
  }

  test("a provenance JWS verifies with jose against the fetched JWKS and with openssl; tampering is rejected", async () => {
    const { signer } = await agentKey();
    const raw = await new Promise<Buffer>((resolve, reject) =>
      nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" }).sendMail(
        {
          from: "a@svc.localhost",
          to: "b@example.test",
          subject: "Hi",
          text: "Hello\nthere\n\n\n",
          html: "<p>Hello</p>",
          messageId: "<m1@svc.localhost>",
        },
        (err, info) => (err ? reject(err) : resolve(info.message as Buffer)),
      ),
    );
    const token = await signProvenance(signer, {
      issuer: base,
      agentId: "agt_prov1",
      messageId: "0190aaaa-0000-7000-8000-000000000001",
      rfcMessageId: "<m1@svc.localhost>",
      channel: "email",
      bodyCanonicalization: "mime-body/simple",
      bodyHash: emailBodyHash(raw),
    });
    const [h, p, s] = token.split(".") as [string, string, string];
    expect(JSON.parse(Buffer.from(h, "base64url").toString())).toEqual({
      alg: "EdDSA",
      kid: signer.kid,
      typ: PROVENANCE_TYP,
    });
    const claims = JSON.parse(Buffer.from(p, "base64url").toString());
    expect(claims).toMatchObject({
      iss: base,
      sub: "agt_prov1",
      msg: "0190aaaa-0000-7000-8000-000000000001",
      mid: "<m1@svc.localhost>",
      ch: "email",
      bhc: "mime-body/simple",
    });
    expect(typeof claims.iat).toBe("number");

    // jose, straight against the JWKS fetched over HTTP.
    const verified = await jwtVerify(token, createRemoteJWKSet(new URL(`${base}/v1/agents/jwks`)), {
      algorithms: ["EdDSA"],
      issuer: base,
    });
    expect(verified.payload.sub).toBe("agt_prov1");
    expect(verified.protectedHeader.kid).toBe(signer.kid);
    // Our verifier, through the SSRF-guarded fetch, with the body as received.
    const ok = await verifyProvenance(token, { keys: remoteJwks(base), issuer: base, body: { raw } });
    expect(ok).toMatchObject({ valid: true, kid: signer.kid, bodyMatches: true, claims: { sub: "agt_prov1" } });
    // openssl, with the public key from the JWKS entry: the JWS signing input is `header.payload`.
    const key = (JSON.parse(jwksBody) as { keys: { kid: string }[] }).keys.find((k) => k.kid === signer.kid);
    expect(key).toBeDefined();
    expect(opensslVerify(publicKeyPem(key as never), Buffer.from(`${h}.${p}`), Buffer.from(s, "base64url"))).toBe(true);

    // Tampered claims (re-encoded payload, original signature): rejected by jose, by us and by openssl.
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: "agt_other" })).toString("base64url");
    await expect(
      jwtVerify(`${h}.${forged}.${s}`, createRemoteJWKSet(new URL(`${base}/v1/agents/jwks`))),
    ).rejects.toThrow();
    expect(await verifyProvenance(`${h}.${forged}.${s}`, { keys: remoteJwks(base) })).toMatchObject({
      valid: false,
      reason: "bad_signature",
    });
    expect(opensslVerify(publicKeyPem(key as never), Buffer.from(`${h}.${forged}`), Buffer.from(s, "base64url"))).toBe(
      false,
    );
    // A changed body: the signature holds but the body hash does not.
    const changed = Buffer.from(raw.toString("latin1").replace("Hello", "Jello"), "latin1");
    expect(await verifyProvenance(token, { keys: remoteJwks(base), body: { raw: changed } })).toMatchObject({
      valid: false,
      reason: "body_mismatch",
    });
    // Another issuer required, an unknown key, garbage.
    expect(await verifyProvenance(token, { keys: remoteJwks(base), issuer: "https://other.example" })).toMatchObject({
      valid: false,
      reason: "wrong_issuer",
    });
    expect(await verifyProvenance(token, { keys: { keys: [] } })).toMatchObject({
      valid: false,
      reason: "unknown_key",
    });
    expect(await verifyProvenance("not.a.jws", { keys: { keys: [] } })).toMatchObject({
      valid: false,
      reason: "malformed",
    });
  });

  test("the SSRF guard refuses a JWKS on a private address", async () => {
    const { signer } = await agentKey();
    const token = await signProvenance(signer, {
      issuer: "https://10.0.0.1",
      agentId: "agt_prov1",
      messageId: "m",
      rfcMessageId: "<m@x>",
      channel: "a2a",
      bodyCanonicalization: "content/jcs",
      bodyHash: contentBodyHash({ subject: "s", text: "t", html: null }),
    });
    expect(await verifyProvenance(token, { keys: remoteJwks("https://10.0.0.1") })).toMatchObject({
      valid: false,
      reason: "jwks_unavailable",
    });
  });

  test("the body hash is DKIM simple canonicalization of the MIME body: line ends and trailing blank lines do not matter, content does", () => {
    const crlf = "Subject: x\r\nX-Svc-Provenance: a.b.c\r\n\r\nline 1\r\nline 2\r\n\r\n\r\n";
    const lf = "Subject: x\n\nline 1\nline 2\n";
    expect(emailBodyHash(crlf)).toBe(emailBodyHash(lf));
    expect(emailBodyHash(crlf)).toBe(createHash("sha256").update("line 1\r\nline 2\r\n").digest("base64url"));
    expect(emailBodyHash("Subject: x\r\n\r\nline 1\r\nline 2 \r\n")).not.toBe(emailBodyHash(crlf));
    expect(emailBodyHash("Subject: x\r\n\r\n")).toBe(emailBodyHash("Subject: y\r\n\r\n\r\n"));
    const c = {
      subject: "s",
      text: "t",
      html: null,
      attachments: [{ filename: "a.txt", contentType: "text/plain", sha256: "00" }],
    };
    expect(contentBodyHash(c)).toBe(contentBodyHash({ ...c }));
    expect(contentBodyHash({ ...c, text: "u" })).not.toBe(contentBodyHash(c));
  });
});
