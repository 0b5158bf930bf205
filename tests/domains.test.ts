import { expect, test } from "vitest";
import { env, mailHost } from "@/lib/env";
import { publishDns, withdrawDns } from "./dns-server";
import { call, newOrg } from "./harness";

/** Publishes every record a domain asks for on the loopback DNS server. */
function publishAll(records: { type: string; name: string; value: string; purpose: string }[]): void {
  publishDns(
    records.map((r) =>
      r.type === "MX"
        ? { name: r.name, type: "MX" as const, value: r.value.split(" ")[1] ?? "", priority: 10 }
        : { name: r.name, type: "TXT" as const, value: r.value },
    ),
  );
}

test("adding a domain returns MX, SPF, DKIM and DMARC records; verify moves pending → verified against real DNS", async () => {
  const org = await newOrg();
  const name = `d${Date.now()}.example.test`;
  const created = await call("POST", "/v1/domains", { key: org.secret, body: { name: name.toUpperCase() } });
  expect(created.status).toBe(200);
  const domain = created.body.domain;
  expect(domain).toMatchObject({ object: "domain", name, status: "pending", isShared: false, verifiedAt: null });
  expect(domain.records.map((r: { purpose: string }) => r.purpose)).toEqual(["mx", "spf", "dkim", "dmarc"]);
  const dkim = domain.records.find((r: { purpose: string }) => r.purpose === "dkim");
  expect(dkim.name).toMatch(new RegExp(`^svc\\d{6}[0-9a-f]{4}\\._domainkey\\.${name.replace(/\./g, "\\.")}$`));
  expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/);
  expect(domain.records[0]).toMatchObject({ type: "MX", name, value: `10 ${mailHost()}` });

  // Nothing published yet: still pending, every record failed.
  const early = await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret });
  expect(early.body.domain.status).toBe("pending");
  expect(early.body.domain.records.every((r: { status: string }) => r.status === "failed")).toBe(true);

  // Everything but DMARC: still pending, DMARC named as the missing record.
  publishAll(domain.records.filter((r: { purpose: string }) => r.purpose !== "dmarc"));
  const partial = await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret });
  expect(partial.body.domain.status).toBe("pending");
  expect(
    partial.body.domain.records.map((r: { purpose: string; status: string }) => `${r.purpose}:${r.status}`),
  ).toEqual(["mx:verified", "spf:verified", "dkim:verified", "dmarc:failed"]);

  publishAll(domain.records.filter((r: { purpose: string }) => r.purpose === "dmarc"));
  const verified = await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret });
  expect(verified.body.domain.status).toBe("verified");
  expect(verified.body.domain.verifiedAt).not.toBeNull();

  // domain.verified was appended to the ledger once, and a recheck does not emit it again.
  const again = await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret });
  expect(again.body.domain.status).toBe("verified");
  const { getDb } = await import("@/db");
  const { ledgerEvents } = await import("@/db/schema");
  const { and, eq } = await import("drizzle-orm");
  const db = await getDb();
  const events = await db
    .select()
    .from(ledgerEvents)
    .where(and(eq(ledgerEvents.orgId, org.orgId), eq(ledgerEvents.type, "domain.verified")));
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ partitionKey: `domain:${domain.id}`, seq: 1, data: { domainId: domain.id, name } });
});

test("a wrong DKIM key or a withdrawn record fails verification", async () => {
  const org = await newOrg();
  const name = `w${Date.now()}.example.test`;
  const domain = (await call("POST", "/v1/domains", { key: org.secret, body: { name } })).body.domain;
  publishAll(domain.records.filter((r: { purpose: string }) => r.purpose !== "dkim"));
  const dkim = domain.records.find((r: { purpose: string }) => r.purpose === "dkim");
  publishDns([
    { name: dkim.name, type: "TXT", value: "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong" },
  ]);
  const res = await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret });
  expect(res.body.domain.status).toBe("pending");
  expect(res.body.domain.records.find((r: { purpose: string }) => r.purpose === "dkim").status).toBe("failed");
  withdrawDns(name, "MX");
  const res2 = await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret });
  expect(res2.body.domain.records.find((r: { purpose: string }) => r.purpose === "mx").status).toBe("failed");
});

test("invalid names are 400 invalid_domain; duplicates are 409", async () => {
  const org = await newOrg();
  for (const name of [
    "nodot",
    "-bad.example.com",
    "a..b.com",
    "exa mple.com",
    "1.2.3.4",
    env.SHARED_DOMAIN,
    `x.${env.SHARED_DOMAIN}`,
  ]) {
    const res = await call("POST", "/v1/domains", { key: org.secret, body: { name } });
    expect(res.status, name).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_domain", param: "name" });
  }
  const name = `dup${Date.now()}.example.test`;
  expect((await call("POST", "/v1/domains", { key: org.secret, body: { name } })).status).toBe(200);
  expect((await call("POST", "/v1/domains", { key: org.secret, body: { name } })).status).toBe(409);
});

test("the shared domain is listed, verified and read-only", async () => {
  const org = await newOrg();
  const list = await call("GET", "/v1/domains", { key: org.secret });
  const shared = list.body.domains.find((d: { isShared: boolean }) => d.isShared);
  expect(shared).toMatchObject({ name: env.SHARED_DOMAIN, status: "verified" });
  expect(shared.records.every((r: { status: string }) => r.status === "verified")).toBe(true);
  const patch = await call("PATCH", `/v1/domains/${shared.id}`, { key: org.secret, body: { rotateDkimKey: true } });
  expect(patch.status).toBe(403);
  expect(patch.body.error.code).toBe("not_permitted");
  const del = await call("DELETE", `/v1/domains/${shared.id}`, { key: org.secret });
  expect(del.status).toBe(403);
  expect(del.body.error.code).toBe("not_permitted");
});

test("rotating the DKIM key changes the selector; deleting a domain works and is audited", async () => {
  const org = await newOrg();
  const domain = (await call("POST", "/v1/domains", { key: org.secret, body: { name: `r${Date.now()}.example.test` } }))
    .body.domain;
  const rotated = await call("PATCH", `/v1/domains/${domain.id}`, { key: org.secret, body: { rotateDkimKey: true } });
  const before = domain.records.find((r: { purpose: string }) => r.purpose === "dkim").name;
  const after = rotated.body.domain.records.find((r: { purpose: string }) => r.purpose === "dkim").name;
  expect(after).not.toBe(before);
  const del = await call("DELETE", `/v1/domains/${domain.id}`, { key: org.secret });
  expect(del.body).toEqual({ deleted: true, id: domain.id });
  expect((await call("GET", `/v1/domains/${domain.id}`, { key: org.secret })).status).toBe(404);
  const audit = await call("GET", `/v1/audit-logs?resourceId=${domain.id}`, { key: org.secret });
  expect(audit.body.logs.map((l: { action: string }) => l.action)).toEqual([
    "domain.deleted",
    "domain.dkim_rotated",
    "domain.created",
  ]);
});

test("a send from a custom domain is signed with that domain's key, the rotated one after a rotation", async () => {
  const fs = await import("node:fs");
  const path = await import("node:path");
  const org = await newOrg();
  const name = `k${Date.now()}.example.test`;
  const domain = (await call("POST", "/v1/domains", { key: org.secret, body: { name } })).body.domain;
  publishAll(domain.records);
  expect((await call("POST", `/v1/domains/${domain.id}/verify`, { key: org.secret })).body.domain.status).toBe(
    "verified",
  );
  const inbox = (await call("POST", "/v1/inboxes", { key: org.secret, body: { address: `news@${name}` } })).body.inbox;
  expect(inbox.id).toBeTruthy();
  const selectorOf = (d: { records: { purpose: string; name: string }[] }) =>
    d.records.find((r) => r.purpose === "dkim")?.name.split("._domainkey.")[0];
  const signedWith = async (): Promise<string | undefined> => {
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, to: "someone@example.com", subject: "k", text: "k" },
    });
    expect(sent.body.status).toBe("sent");
    const raw = fs.readFileSync(path.join(env.OUTBOX_DIR, `${sent.body.providerMessageId}.eml`), "utf8");
    const header = raw.slice(0, raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ");
    expect(header).toContain(` d=${name};`);
    return /\bs=([^;\s]+)/.exec(header.slice(header.indexOf("DKIM-Signature:")))?.[1];
  };
  expect(await signedWith()).toBe(selectorOf(domain));
  const rotated = (await call("PATCH", `/v1/domains/${domain.id}`, { key: org.secret, body: { rotateDkimKey: true } }))
    .body.domain;
  expect(selectorOf(rotated)).not.toBe(selectorOf(domain));
  expect(await signedWith()).toBe(selectorOf(rotated));
});
