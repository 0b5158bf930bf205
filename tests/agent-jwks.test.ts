import fs from "node:fs";
import path from "node:path";
import { createLocalJWKSet, jwtVerify } from "jose";
import { beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import { contentBodyHash } from "@/lib/agents/provenance";
import { env, publicBaseUrl } from "@/lib/env";
import { signingInput } from "@/lib/trust/artifact";
import { type JwksKey, publicKeyPem } from "@/lib/trust/jwk";
import { serviceSigner, signArtifact } from "@/lib/trust/keys";
import { call, newInbox, newOrg, type TestOrg } from "./harness";
import { opensslVerify } from "./openssl";
import { newAgent } from "./resources";

/** The public JWKS and verify endpoints: what a party that does not trust this service checks against. */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});
const req = (method: string, p: string, body?: unknown) => call(method, p, { key: org.secret, body });
const jwks = async () => {
  const res = await call("GET", "/v1/agents/jwks");
  expect(res.status).toBe(200);
  return res.body as { keys: JwksKey[] };
};

/** An email sent by a freshly bound agent: the raw message and its token. */
async function agentEmail(text = "Signed body") {
  const agent = await newAgent(org);
  const inbox = await newInbox(org, "jwks");
  await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: inbox.id });
  const sent = await req("POST", "/v1/messages", {
    inboxId: inbox.id,
    to: "reader@example.com",
    subject: "Check me",
    text,
  });
  expect(sent.status).toBe(200);
  const raw = fs.readFileSync(path.join(env.OUTBOX_DIR, `${sent.body.providerMessageId}.eml`), "utf8");
  const token = /^X-Svc-Provenance: (\S+)\r?$/m.exec(raw)?.[1] ?? "";
  return { agent, raw, token, messageId: sent.body.id as string };
}

describe("GET /v1/agents/jwks (public)", () => {
  test("every active agent key and the service's artifact key, as the spec's JWKS keys; a revoked agent's key is withdrawn", async () => {
    const a = await newAgent(org);
    const b = await newAgent(org);
    await req("PATCH", `/v1/agents/${b.agentId}`, { status: "suspended" });
    const c = await newAgent(org);
    await req("DELETE", `/v1/agents/${c.agentId}`);
    const { keys } = await jwks();
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    expect(keys.every((k) => k.kty === "OKP" && k.crv === "Ed25519" && k.alg === "EdDSA" && k.use === "sig")).toBe(
      true,
    );
    const kids = keys.map((k) => k.kid);
    expect(kids).toContain(a.keys[0]?.kid);
    expect(kids).toContain(b.keys[0]?.kid);
    expect(kids).not.toContain(c.keys[0]?.kid);
    expect(kids[0]).toBe((await serviceSigner(await getDb())).kid);
    expect(new Set(kids).size).toBe(kids.length);
  });
});

describe("provenance checked by a stranger", () => {
  test("jose against the fetched JWKS and openssl pkeyutl on the raw Ed25519 signature accept it; both reject it tampered", async () => {
    const { agent, token, messageId } = await agentEmail();
    const set = await jwks();
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(set), {
      algorithms: ["EdDSA"],
      issuer: publicBaseUrl(),
    });
    expect(payload).toMatchObject({ sub: agent.agentId, msg: messageId });
    const key = set.keys.find((k) => k.kid === protectedHeader.kid);
    expect(key).toBeDefined();
    const [h, p, s] = token.split(".") as [string, string, string];
    const pem = publicKeyPem(key as JwksKey);
    expect(opensslVerify(pem, Buffer.from(`${h}.${p}`), Buffer.from(s, "base64url"))).toBe(true);
    const claims = JSON.parse(Buffer.from(p, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, msg: "00000000-0000-0000-0000-000000000000" })).toString(
      "base64url",
    );
    await expect(jwtVerify(`${h}.${forged}.${s}`, createLocalJWKSet(set))).rejects.toThrow();
    expect(opensslVerify(pem, Buffer.from(`${h}.${forged}`), Buffer.from(s, "base64url"))).toBe(false);
    const flipped = Buffer.from(s, "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(opensslVerify(pem, Buffer.from(`${h}.${p}`), flipped)).toBe(false);
  });

  test("POST /v1/agents/verify (no key): names the agent and its status; tampering, other bodies, revocation and foreign tokens fail with the reason", async () => {
    const { agent, raw, token } = await agentEmail("The exact words");
    const ok = await call("POST", "/v1/agents/verify", { body: { provenance: token } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      valid: true,
      type: "provenance",
      reason: null,
      kid: agent.keys[0]?.kid,
      bodyChecked: false,
      signer: { type: "agent", agentId: agent.agentId, display: agent.display, status: "active", keyStatus: "active" },
    });
    expect(ok.body.claims.sub).toBe(agent.agentId);
    // The whole message: header found, body hash checked.
    expect((await call("POST", "/v1/agents/verify", { body: { message: raw } })).body).toMatchObject({
      valid: true,
      bodyChecked: true,
    });
    const edited = await call("POST", "/v1/agents/verify", {
      body: { message: raw.replace("The exact words", "Other words!!!") },
    });
    expect(edited.body).toMatchObject({ valid: false, reason: "body_mismatch", bodyChecked: true });
    const [h, p, s] = token.split(".") as [string, string, string];
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, "base64url").toString()), sub: "agt_ffffffffffffffffffffffffffffffff" })).toString("base64url")}.${s}`;
    expect((await call("POST", "/v1/agents/verify", { body: { provenance: forged } })).body).toMatchObject({
      valid: false,
      reason: "bad_signature",
      claims: null,
      signer: { agentId: agent.agentId },
    });
    expect((await call("POST", "/v1/agents/verify", { body: { provenance: "garbage" } })).body).toMatchObject({
      valid: false,
      reason: "malformed",
    });
    expect(
      (await call("POST", "/v1/agents/verify", { body: { message: "Subject: none\r\n\r\nhi" } })).body,
    ).toMatchObject({ valid: false, reason: "no_provenance" });
    // Suspended: still valid (it was signed while active), the status says suspended.
    await req("PATCH", `/v1/agents/${agent.agentId}`, { status: "suspended" });
    expect((await call("POST", "/v1/agents/verify", { body: { provenance: token } })).body).toMatchObject({
      valid: true,
      signer: { status: "suspended" },
    });
    // Revoked: named, but no longer valid.
    await req("DELETE", `/v1/agents/${agent.agentId}`);
    expect((await call("POST", "/v1/agents/verify", { body: { provenance: token } })).body).toMatchObject({
      valid: false,
      reason: "key_revoked",
      signer: { agentId: agent.agentId, status: "revoked", keyStatus: "revoked" },
    });
  });

  test("a2a content checks its body hash; a signed artifact verifies against the service key and fails tampered", async () => {
    const agent = await newAgent(org);
    const from = await newInbox(org, "a2a-v");
    const to = await newInbox(org, "a2a-w");
    await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: from.id });
    const sent = await req("POST", "/v1/messages", {
      inboxId: from.id,
      to: to.address,
      channel: "a2a",
      subject: "S",
      text: "T",
    });
    const token = sent.body.channelMetadata.provenance as string;
    const content = { subject: "S", text: "T", html: null, attachments: [] };
    expect(JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()).bh).toBe(
      contentBodyHash(content),
    );
    expect((await call("POST", "/v1/agents/verify", { body: { provenance: token, content } })).body).toMatchObject({
      valid: true,
      bodyChecked: true,
    });
    expect(
      (await call("POST", "/v1/agents/verify", { body: { provenance: token, content: { ...content, text: "t" } } }))
        .body,
    ).toMatchObject({ valid: false, reason: "body_mismatch" });

    const artifact = await signArtifact(await getDb(), { type: "svc.test.v1", issuer: publicBaseUrl(), n: 1 });
    const good = await call("POST", "/v1/agents/verify", { body: { artifact } });
    expect(good.body).toMatchObject({
      valid: true,
      type: "artifact",
      kid: artifact.kid,
      signer: { type: "service", agentId: null, keyStatus: "active" },
    });
    // openssl agrees, over the JCS bytes, with the key from the JWKS.
    const key = (await jwks()).keys.find((k) => k.kid === artifact.kid) as JwksKey;
    expect(
      opensslVerify(publicKeyPem(key), signingInput(artifact), Buffer.from(artifact.signature ?? "", "base64url")),
    ).toBe(true);
    const tampered = { ...artifact, n: 2 };
    expect((await call("POST", "/v1/agents/verify", { body: { artifact: tampered } })).body).toMatchObject({
      valid: false,
      reason: "bad_signature",
    });
    expect(
      opensslVerify(publicKeyPem(key), signingInput(tampered), Buffer.from(artifact.signature ?? "", "base64url")),
    ).toBe(false);
    expect(
      (await call("POST", "/v1/agents/verify", { body: { artifact: { ...artifact, kid: "nope" } } })).body,
    ).toMatchObject({ valid: false, reason: "unknown_key", signer: null });
  });

  test("bad requests: none or two of provenance/message/artifact are 400", async () => {
    for (const body of [
      {},
      { provenance: "a.b.c", artifact: {} },
      { artifact: {}, message: "x" },
      { content: { subject: null, text: null, html: null } },
    ]) {
      const res = await call("POST", "/v1/agents/verify", { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });
});
