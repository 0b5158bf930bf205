import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { addressProblem, outboundFetch, OutboundRefused } from "@/lib/providers/http";
import { webhookUrlProblem } from "@/lib/webhooks/url-guard";
import { publishDns } from "./dns-server";
import { call, newOrg } from "./harness";

/**
 * Issue 10 #13: the outbound address policy, and the guarded client connecting only to the
 * address it checked, against a real HTTP server on loopback and the loopback DNS server.
 */
let server: http.Server;
let port: number;
const hits: { url: string; host: string | undefined }[] = [];

beforeAll(async () => {
  await getDb(); // opening the embedded database is slow under load; not inside a test's time limit
  server = http.createServer((req, res) => {
    hits.push({ url: req.url ?? "", host: req.headers.host });
    if (req.url === "/redirect-to-metadata") {
      res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "text/plain" }).end("hello");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const name = (label: string) => `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.rebind.test`;

test("address policy table: public unicast only; embedded IPv4 judged by the IPv4; metadata addresses refused", () => {
  const table: [string, "allowed" | "refused" | "loopback-only"][] = [
    ["93.184.215.14", "allowed"],
    ["8.8.8.8", "allowed"],
    ["2606:4700:4700::1111", "allowed"],
    ["::ffff:8.8.8.8", "allowed"], // IPv4-mapped public
    ["64:ff9b::808:808", "allowed"], // NAT64 of a public address (DNS64 on IPv6-only hosts)
    ["2002:808:808::1", "allowed"], // 6to4 of a public address
    ["127.0.0.1", "loopback-only"],
    ["127.5.6.7", "loopback-only"],
    ["::1", "loopback-only"],
    ["::ffff:127.0.0.1", "loopback-only"],
    ["[::1]", "loopback-only"],
    ["::127.0.0.1", "refused"], // IPv4-compatible (deprecated): the bypass
    ["::7f00:1", "refused"],
    ["::a9fe:a9fe", "refused"],
    ["::8.8.8.8", "refused"],
    ["64:ff9b::7f00:1", "refused"], // NAT64 of loopback
    ["64:ff9b::a9fe:a9fe", "refused"], // NAT64 of metadata
    ["64:ff9b:1::808:808", "refused"], // local-use NAT64
    ["2002:7f00:1::", "refused"], // 6to4 of loopback
    ["2002:a00:1::", "refused"], // 6to4 of 10.0.0.1
    ["2001::1", "refused"], // Teredo
    ["::ffff:10.0.0.1", "refused"],
    ["::ffff:169.254.169.254", "refused"],
    ["168.63.129.16", "refused"], // Azure host address
    ["169.254.169.254", "refused"],
    ["169.254.170.2", "refused"],
    ["100.100.100.200", "refused"],
    ["192.0.0.192", "refused"],
    ["fd00:ec2::254", "refused"],
    ["10.1.2.3", "refused"],
    ["172.16.0.1", "refused"],
    ["192.168.1.1", "refused"],
    ["100.64.0.1", "refused"],
    ["0.0.0.0", "refused"],
    ["0.1.2.3", "refused"],
    ["::", "refused"],
    ["255.255.255.255", "refused"],
    ["224.0.0.1", "refused"],
    ["240.0.0.1", "refused"],
    ["192.0.2.1", "refused"],
    ["198.18.0.1", "refused"],
    ["fe80::1", "refused"],
    ["fe80::1%eth0", "refused"],
    ["fc00::1", "refused"],
    ["ff02::1", "refused"],
    ["100::1", "refused"],
    ["2001:db8::1", "refused"],
    ["fec0::1", "refused"],
    ["not-an-ip", "refused"],
  ];
  for (const [address, expected] of table) {
    const strict = addressProblem(address, { allowLoopback: false });
    const dev = addressProblem(address, { allowLoopback: true });
    const got = strict === null ? "allowed" : dev === null ? "loopback-only" : "refused";
    expect(got, `${address}: ${strict ?? ""}`).toBe(expected);
  }
  expect(addressProblem("168.63.129.16", { allowLoopback: false })).toContain("Azure");
});

test("IP-literal URLs in every spelling are refused before any connection", async () => {
  const urls = [
    `http://[::127.0.0.1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[64:ff9b::7f00:1]:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://127.1:${port}/`,
    `http://localhost:${port}/`,
    "http://168.63.129.16/machine?comp=goalstate",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
  ];
  for (const url of urls) await expect(outboundFetch(url), url).rejects.toBeInstanceOf(OutboundRefused);
  expect(hits).toEqual([]);
  await expect(outboundFetch("file:///etc/passwd")).rejects.toBeInstanceOf(OutboundRefused);
});

test("DNS rebinding: the name is public when checked and 127.0.0.1 when the delivery resolves it; the client refuses and never connects", async () => {
  const host = name("rebind");
  publishDns([{ name: host, type: "A", value: "93.184.215.14", sequence: ["93.184.215.14", "127.0.0.1"] }]);
  // The URL check (first query) sees a public address…
  expect(await webhookUrlProblem(`https://${host}:${port}/hook`)).toBeNull();
  // …the connection (second query) gets loopback, which it refuses instead of connecting.
  const before = hits.length;
  const err = await outboundFetch(`http://${host}:${port}/hook`, { method: "POST", body: "{}" }).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundRefused);
  expect(String((err as Error).message)).toContain("127.0.0.1 is a loopback address");
  expect(hits.length).toBe(before);
});

test("a name with one refused address among its answers is refused; one that resolves to loopback connects there when loopback is allowed, keeping its Host", async () => {
  const mixed = name("mixed");
  publishDns([
    { name: mixed, type: "A", value: "93.184.215.14" },
    { name: mixed, type: "A", value: "10.0.0.1" },
  ]);
  await expect(outboundFetch(`http://${mixed}:${port}/`)).rejects.toThrow(/10\.0\.0\.1 is a private address/);
  expect(await webhookUrlProblem(`https://${mixed}/hook`)).toContain("private");

  const local = name("local");
  publishDns([{ name: local, type: "A", value: "127.0.0.1" }]);
  await expect(outboundFetch(`http://${local}:${port}/`)).rejects.toBeInstanceOf(OutboundRefused);
  const res = await outboundFetch(`http://${local}:${port}/hello`, { allowLoopback: true });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe("hello");
  expect(hits.at(-1)).toEqual({ url: "/hello", host: `${local}:${port}` });
});

test("redirects are not followed by default, and a followed redirect is guarded hop by hop", async () => {
  const manual = await outboundFetch(`http://127.0.0.1:${port}/redirect-to-metadata`, { allowLoopback: true });
  expect(manual.status).toBe(302);
  await expect(
    outboundFetch(`http://127.0.0.1:${port}/redirect-to-metadata`, { allowLoopback: true, redirect: "follow" }),
  ).rejects.toThrow(/169\.254\.169\.254/);
});

test("webhook delivery goes through the guard: a URL that rebinds to a private address after it was saved is never connected to", async () => {
  const org = await newOrg();
  const host = name("hook");
  // Saved (query 1) and checked before delivery (query 2) as public, then the connection (query 3) gets 10.0.0.7.
  publishDns([
    { name: host, type: "A", value: "93.184.215.14", sequence: ["93.184.215.14", "93.184.215.14", "10.0.0.7"] },
  ]);
  const created = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: { url: `https://${host}/hook`, events: ["message.received"] },
  });
  expect(created.status).toBe(200);
  const ping = await call("POST", `/v1/webhooks/${created.body.webhook.id}/test`, { key: org.secret });
  expect(ping.body.delivery).toMatchObject({ status: "failed", responseStatus: null });
  expect(ping.body.delivery.error).toContain("10.0.0.7 is a private address");
});

test("webhook URL errors say what to change: http needs https or the development setting for loopback, an unresolvable http host is not called unresolvable", async () => {
  // Production (the setting off): plain http is refused before any lookup, naming the setting.
  for (const url of ["http://example.com/hook", "http://localhost:3000/hook", "http://127.0.0.1/hook"]) {
    const problem = await webhookUrlProblem(url, false);
    expect(problem, url).toMatch(/^must use https:\/\//);
    expect(problem, url).toContain("WEBHOOK_ALLOW_LOOPBACK_HTTP=true");
  }
  // https to loopback without the setting: the address and the setting are named.
  const loop = await webhookUrlProblem("https://localhost/hook", false);
  expect(loop).toContain("loopback address 127.0.0.1");
  expect(loop).toContain("WEBHOOK_ALLOW_LOOPBACK_HTTP=true");
  // Development (the setting on): loopback over http is fine; http elsewhere needs https, resolvable or not.
  expect(await webhookUrlProblem(`http://localhost:${port}/hook`, true)).toBeNull();
  expect(await webhookUrlProblem(`http://${name("nowhere")}/hook`, true)).toMatch(/^must use https:\/\/.*loopback/);
  const pub = name("pub");
  publishDns([{ name: pub, type: "A", value: "93.184.215.14" }]);
  expect(await webhookUrlProblem(`http://${pub}/hook`, true)).toMatch(/^must use https:\/\//);
  expect(await webhookUrlProblem(`https://${pub}/hook`, true)).toBeNull();
  // https to a name without records does not resolve; other schemes and credentials are named.
  expect(await webhookUrlProblem(`https://${name("nowhere")}/hook`, true)).toMatch(/does not resolve/);
  expect(await webhookUrlProblem("ftp://example.com/x", true)).toBe("must use https:// (not ftp:)");
  expect(await webhookUrlProblem("https://u:p@example.com/x", true)).toMatch(/credentials/);
  // Through the API: the sentence the console shows, on the url field.
  const org = await newOrg();
  const res = await call("POST", "/v1/webhooks", {
    key: org.secret,
    body: { url: "http://example.com/hook", events: ["message.received"] },
  });
  expect(res.status).toBe(400);
  expect(res.body.error.param).toBe("url");
  expect(res.body.error.message).toMatch(/^The URL must use https:\/\/ .*WEBHOOK_ALLOW_LOOPBACK_HTTP/);
  expect(res.body.error.message).not.toContain("does not resolve");
});
