import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import nodemailer from "nodemailer";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getDb } from "@/db";
import {
  contentBodyHash,
  emailBodyHash,
  PROVENANCE_TYP,
  signProvenance,
  verifyProvenance,
} from "@/lib/agents/provenance";
import { receiveInbound } from "@/lib/channels/email/ingress";
import { insertSigningKey, jwksKeyOf, signerFor } from "@/lib/trust/keys";
import { dkimRecordValue, sharedDomainKey } from "@/lib/domains/dkim";
import { mailauthResolver } from "@/lib/domains/dns";
import { env, publicBaseUrl } from "@/lib/env";
import { publishDns } from "./dns-server";
import { call, newInbox, newKey, newOrg, type TestOrg } from "./harness";
import { newAgent } from "./resources";

/** X-Svc-Provenance on an agent's sends: email (in the MIME), a2a (in the recipient's copy), refusals, and none without an agent. */
let org: TestOrg;
beforeAll(async () => {
  org = await newOrg();
});
const req = (method: string, p: string, body?: unknown, key = org.secret) => call(method, p, { key, body });

type AgentKey = { kid: string; kty: "OKP"; crv: "Ed25519"; x: string; alg: "EdDSA" };
const jwksOf = (keys: AgentKey[]) => ({
  keys: keys.map(({ kid, kty, crv, x, alg }) => ({ kid, kty, crv, x, alg, use: "sig" as const })),
});

function provenanceHeader(raw: string): string | null {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/));
  const m = /^X-Svc-Provenance: ([A-Za-z0-9_.-]+)\r?$/m.exec(head);
  return m?.[1] ?? null;
}

describe("provenance on an agent's sends", () => {
  test("email through a bound key: the MIME carries a compact JWS that verifies (jose) with the claims, DKIM still passes, tampering fails", async () => {
    const agent = await newAgent(org, { display: "Mailer" });
    const key = await newKey(org, { scopes: ["messages:send"] });
    const inbox = await newInbox(org, "prov");
    expect((await req("POST", `/v1/agents/${agent.agentId}/bind`, { apiKeyId: key.id })).status).toBe(200);
    const sent = await req(
      "POST",
      "/v1/messages",
      {
        inboxId: inbox.id,
        to: "someone@example.com",
        subject: "Signed",
        text: "Line one\nLine two",
        attachments: [{ filename: "a.txt", contentBase64: "aGk=" }],
      },
      key.secret,
    );
    expect(sent.status).toBe(200);
    const raw = fs.readFileSync(path.join(env.OUTBOX_DIR, `${sent.body.providerMessageId}.eml`));
    const token = provenanceHeader(raw.toString("latin1"));
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const header = decodeProtectedHeader(token ?? "");
    expect(header).toEqual({ alg: "EdDSA", kid: agent.keys[0]?.kid, typ: PROVENANCE_TYP });
    const { payload } = await jwtVerify(token ?? "", createLocalJWKSet(jwksOf(agent.keys)), {
      algorithms: ["EdDSA"],
      issuer: publicBaseUrl(),
    });
    const messageId = /^Message-ID: (<[^>]+>)\r?$/m.exec(raw.toString("latin1"))?.[1];
    expect(payload).toMatchObject({
      iss: publicBaseUrl(),
      sub: agent.agentId,
      msg: sent.body.id,
      mid: messageId,
      ch: "email",
      bhc: "mime-body/simple",
      bh: emailBodyHash(raw),
    });
    expect(typeof payload.iat).toBe("number");
    // The provenance header does not disturb DKIM.
    const dkim = await sharedDomainKey(await getDb());
    publishDns([
      { name: `${dkim.selector}._domainkey.${env.SHARED_DOMAIN}`, type: "TXT", value: dkimRecordValue(dkim.publicKey) },
    ]);
    expect((await dkimVerify(raw, { resolver: mailauthResolver() as never })).results[0]?.status).toMatchObject({
      result: "pass",
    });
    // The body as sent, and nothing else, verifies.
    const keys = jwksOf(agent.keys);
    expect(await verifyProvenance(token ?? "", { keys, issuer: publicBaseUrl(), body: { raw } })).toMatchObject({
      valid: true,
      bodyMatches: true,
    });
    const tampered = Buffer.from(raw.toString("latin1").replace("Line two", "Line 2"), "latin1");
    expect(await verifyProvenance(token ?? "", { keys, body: { raw: tampered } })).toMatchObject({
      valid: false,
      reason: "body_mismatch",
    });
    const [h, p, s] = (token ?? "").split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: "agt_0123" })).toString("base64url")}.${s}`;
    expect(await verifyProvenance(forged, { keys })).toMatchObject({ valid: false, reason: "bad_signature" });
    expect(p).toBeTruthy();
    // The stored message is the agent's and records the token.
    const msg = (await req("GET", `/v1/messages/${sent.body.id}`)).body.message;
    expect(msg.channelMetadata).toMatchObject({ provenance: token, provenanceVerified: true });
  });

  test("a2a through a bound inbox: the recipient's copy carries the token (content/jcs) with provenanceVerified", async () => {
    const agent = await newAgent(org, { display: "Peer agent" });
    const from = await newInbox(org, "a2a-from");
    const peerOrg = await newOrg();
    const to = await newInbox(peerOrg, "a2a-to");
    expect((await req("POST", `/v1/agents/${agent.id}/bind`, { inboxId: from.id })).status).toBe(200);
    const sent = await req("POST", "/v1/messages", {
      inboxId: from.id,
      to: to.address,
      channel: "a2a",
      subject: "Hello peer",
      text: "hi",
      html: "<p>hi</p>",
    });
    expect(sent.status).toBe(200);
    expect(sent.body.channelMetadata).toMatchObject({ provenanceVerified: true });
    const token = sent.body.channelMetadata.provenance as string;
    const received = await call("GET", `/v1/messages?inboxId=${to.id}`, { key: peerOrg.secret });
    const copy = received.body.messages[0];
    expect(copy.channelMetadata).toMatchObject({ provenance: token, provenanceVerified: true });
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwksOf(agent.keys)));
    expect(payload).toMatchObject({
      sub: agent.agentId,
      msg: sent.body.id,
      ch: "a2a",
      bhc: "content/jcs",
      mid: copy.messageId,
    });
    expect(payload.bh).toBe(contentBodyHash({ subject: "Hello peer", text: "hi", html: "<p>hi</p>", attachments: [] }));
    expect(payload.bh).not.toBe(
      contentBodyHash({ subject: "Hello peer", text: "hi!", html: "<p>hi</p>", attachments: [] }),
    );
  });

  test("the key's agent signs when key and inbox are bound to different agents; no agent, no header", async () => {
    const byKey = await newAgent(org);
    const byInbox = await newAgent(org);
    const key = await newKey(org, { scopes: ["messages:send"] });
    const inbox = await newInbox(org, "both");
    await req("POST", `/v1/agents/${byKey.agentId}/bind`, { apiKeyId: key.id });
    await req("POST", `/v1/agents/${byInbox.agentId}/bind`, { inboxId: inbox.id });
    const viaKey = await req(
      "POST",
      "/v1/messages",
      { inboxId: inbox.id, to: "k@example.com", subject: "k", text: "k" },
      key.secret,
    );
    const viaAdmin = await req("POST", "/v1/messages", {
      inboxId: inbox.id,
      to: "a@example.com",
      subject: "a",
      text: "a",
    });
    const subOf = (id: string) => {
      const token = provenanceHeader(fs.readFileSync(path.join(env.OUTBOX_DIR, `${id}.eml`), "latin1")) ?? "";
      return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()).sub;
    };
    expect(subOf(viaKey.body.providerMessageId)).toBe(byKey.agentId);
    expect(subOf(viaAdmin.body.providerMessageId)).toBe(byInbox.agentId);
    const plainInbox = await newInbox(org, "plain");
    const plain = await req("POST", "/v1/messages", {
      inboxId: plainInbox.id,
      to: "p@example.com",
      subject: "p",
      text: "p",
    });
    expect(
      provenanceHeader(fs.readFileSync(path.join(env.OUTBOX_DIR, `${plain.body.providerMessageId}.eml`), "latin1")),
    ).toBeNull();
  });

  test("a suspended or revoked agent's sends are refused (403), never sent unsigned; reactivated, it signs again", async () => {
    const agent = await newAgent(org);
    const inbox = await newInbox(org, "suspend");
    await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: inbox.id });
    await req("PATCH", `/v1/agents/${agent.agentId}`, { status: "suspended" });
    const refused = await req("POST", "/v1/messages", {
      inboxId: inbox.id,
      to: "x@example.com",
      subject: "s",
      text: "s",
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "not_permitted", param: "inboxId" });
    expect(refused.body.error.message).toContain(agent.agentId);
    await req("PATCH", `/v1/agents/${agent.agentId}`, { status: "active" });
    const ok = await req("POST", "/v1/messages", { inboxId: inbox.id, to: "x@example.com", subject: "s", text: "s" });
    expect(ok.status).toBe(200);
    expect(
      provenanceHeader(fs.readFileSync(path.join(env.OUTBOX_DIR, `${ok.body.providerMessageId}.eml`), "latin1")),
    ).not.toBeNull();
    await req("DELETE", `/v1/agents/${agent.agentId}`);
    expect(
      (await req("POST", "/v1/messages", { inboxId: inbox.id, to: "x@example.com", subject: "s", text: "s" })).status,
    ).toBe(403);
    // Unbound, the inbox sends again (unsigned: it is no agent's any more).
    await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: inbox.id, unbind: true });
    expect(
      (await req("POST", "/v1/messages", { inboxId: inbox.id, to: "x@example.com", subject: "s", text: "s" })).status,
    ).toBe(200);
  });

  test("a scheduled send keeps the agent it was accepted as and is signed when it fires", async () => {
    const agent = await newAgent(org);
    const inbox = await newInbox(org, "sched");
    await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: inbox.id });
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await req("POST", "/v1/messages", {
      inboxId: inbox.id,
      to: "later@example.com",
      subject: "later",
      text: "later",
      sendAt,
    });
    expect(scheduled.body.status).toBe("scheduled");
    // Unbinding after acceptance does not change whose message it is.
    await req("POST", `/v1/agents/${agent.agentId}/bind`, { inboxId: inbox.id, unbind: true });
    const { sendScheduledMessage } = await import("@/lib/messages/send");
    expect(await sendScheduledMessage(await getDb(), scheduled.body.id)).toMatchObject({ status: "sent" });
    const msg = (await req("GET", `/v1/messages/${scheduled.body.id}`)).body.message;
    const token = msg.channelMetadata.provenance as string;
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwksOf(agent.keys)));
    expect(payload).toMatchObject({ sub: agent.agentId, msg: scheduled.body.id, mid: msg.messageId });
  });
});

describe("inbound email from another deployment", () => {
  let server: http.Server;
  let base = "";
  let jwksBody = "";
  beforeAll(async () => {
    server = http.createServer((r, res) => {
      res.writeHead(r.url === "/v1/agents/jwks" ? 200 : 404, { "content-type": "application/json" });
      res.end(r.url === "/v1/agents/jwks" ? jwksBody : "{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A message as the other deployment's agent sends it: MIME, then the provenance header on top. */
  async function signedMail(to: string, messageId: string) {
    const db = await getDb();
    const other = await newOrg();
    const agentId = `agt_${"ab".repeat(16)}`;
    const row = await insertSigningKey(db, { purpose: "agent", orgId: other.orgId, agentId });
    if (!row) throw new Error("no key");
    jwksBody = JSON.stringify({ keys: [jwksKeyOf(row)] });
    const mime = await new Promise<Buffer>((resolve, reject) =>
      nodemailer
        .createTransport({ streamTransport: true, buffer: true, newline: "windows" })
        .sendMail(
          { from: "agent@remote.example", to, subject: "From afar", text: "Signed far away", messageId },
          (err, info) => (err ? reject(err) : resolve(info.message as Buffer)),
        ),
    );
    const token = await signProvenance(await signerFor(db, row), {
      issuer: base,
      agentId,
      messageId: "0190aaaa-0000-7000-8000-000000000009",
      rfcMessageId: messageId,
      channel: "email",
      bodyCanonicalization: "mime-body/simple",
      bodyHash: emailBodyHash(mime),
    });
    return { raw: Buffer.concat([Buffer.from(`X-Svc-Provenance: ${token}\r\n`), mime]), token, agentId };
  }
  const envelopeTo = (to: string) => ({
    mailFrom: "agent@remote.example",
    rcptTo: [to],
    remoteAddress: "127.0.0.1",
    helo: "remote.example",
  });

  test("a valid token verifies against the issuer's JWKS; a changed body, another Message-ID or garbage do not", async () => {
    const inbox = await newInbox(org, "from-afar");
    const good = await signedMail(inbox.address, "<afar-1@remote.example>");
    const [stored] = await receiveInbound(good.raw, envelopeTo(inbox.address));
    const got = (await req("GET", `/v1/messages/${stored?.id}`)).body.message;
    expect(got.channelMetadata).toMatchObject({
      provenance: good.token,
      provenanceVerified: true,
      provenanceAgentId: good.agentId,
      provenanceIssuer: base,
      provenanceError: null,
    });

    const tampered = Buffer.from(good.raw.toString("latin1").replace("Signed far away", "Signed nearby!!"), "latin1");
    const [bad] = await receiveInbound(tampered, envelopeTo(inbox.address));
    expect((await req("GET", `/v1/messages/${bad?.id}`)).body.message.channelMetadata).toMatchObject({
      provenanceVerified: false,
      provenanceError: "body_mismatch",
      provenanceAgentId: null,
    });

    const lifted = Buffer.from(
      good.raw.toString("latin1").replace("<afar-1@remote.example>", "<afar-2@remote.example>"),
      "latin1",
    );
    const [moved] = await receiveInbound(lifted, envelopeTo(inbox.address));
    expect((await req("GET", `/v1/messages/${moved?.id}`)).body.message.channelMetadata).toMatchObject({
      provenanceVerified: false,
      provenanceError: "message_id_mismatch",
    });

    const garbage = Buffer.concat([
      Buffer.from("X-Svc-Provenance: not-a-token\r\n"),
      good.raw.subarray(good.raw.indexOf("\r\n") + 2),
    ]);
    const [junk] = await receiveInbound(garbage, envelopeTo(inbox.address));
    expect((await req("GET", `/v1/messages/${junk?.id}`)).body.message.channelMetadata).toMatchObject({
      provenance: "not-a-token",
      provenanceVerified: false,
      provenanceError: "malformed",
    });

    // Without the header: no provenance keys at all.
    const plain = good.raw.subarray(good.raw.indexOf("\r\n") + 2);
    const [none] = await receiveInbound(plain, envelopeTo(inbox.address));
    expect((await req("GET", `/v1/messages/${none?.id}`)).body.message.channelMetadata.provenance).toBeUndefined();
  });
});
