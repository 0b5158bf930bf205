import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { simulatedOutcomes } from "@/lib/providers/mail/embedded";
import { smtpRelayTransport } from "@/lib/providers/mail/smtp";

/** The SMTP relay transport against a real SMTP server on loopback (the smarthost). */
let smarthost: SMTPServer;
let port = 0;
let connections = 0;
const received: { from: string; to: string[]; raw: string; user: string | null }[] = [];

beforeAll(async () => {
  smarthost = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onConnect(_session, cb) {
      connections++;
      cb();
    },
    onAuth(auth, _session, cb) {
      if (auth.username === "relay" && auth.password === "s3cret") cb(null, { user: "relay" });
      else cb(new Error("bad credentials"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString(),
          user: typeof session.user === "string" ? session.user : null,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smarthost.listen(0, "127.0.0.1", () => resolve()));
  const address = smarthost.server.address();
  port = typeof address === "object" && address ? address.port : 0;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smarthost.close(() => resolve()));
});

test("the relay transport authenticates and hands over the exact signed message and envelope", async () => {
  const transport = smtpRelayTransport(`smtp://relay:s3cret@127.0.0.1:${port}/?ignoreTLS=true`);
  const raw = Buffer.from(
    "DKIM-Signature: v=1; test\r\nFrom: a@x.test\r\nTo: b@y.test\r\nSubject: relayed\r\nMessage-ID: <m1@x.test>\r\n\r\nbody\r\n",
  );
  const result = await transport.send({
    raw,
    envelope: { from: "a@x.test", to: ["b@y.test", "hidden@y.test"] },
    messageId: "<m1@x.test>",
  });
  expect(result).toMatchObject({ provider: "smtp", outcomes: [] });
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ from: "a@x.test", to: ["b@y.test", "hidden@y.test"], user: "relay" });
  expect(received[0]?.raw).toContain("DKIM-Signature: v=1; test");
  expect(received[0]?.raw).toContain("Subject: relayed");
  transport.close();
});

test("a batch of sends goes over the transport's pool of open connections, not one connection each", async () => {
  const transport = smtpRelayTransport(`smtp://relay:s3cret@127.0.0.1:${port}/?ignoreTLS=true`);
  const before = received.length;
  connections = 0;
  try {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        transport.send({
          raw: Buffer.from(`Subject: pooled ${i}\r\nMessage-ID: <p${i}@x.test>\r\n\r\nbody\r\n`),
          envelope: { from: "a@x.test", to: [`r${i}@y.test`] },
          messageId: `<p${i}@x.test>`,
        }),
      ),
    );
  } finally {
    transport.close();
  }
  expect(received.length - before).toBe(20);
  expect(new Set(received.slice(before).map((r) => r.to[0])).size).toBe(20);
  expect(connections).toBeGreaterThan(0);
  expect(connections).toBeLessThanOrEqual(5);
});

test("wrong relay credentials fail the send", async () => {
  const transport = smtpRelayTransport(`smtp://relay:wrong@127.0.0.1:${port}/?ignoreTLS=true`);
  await expect(
    transport.send({
      raw: Buffer.from("Subject: x\r\n\r\nx\r\n"),
      envelope: { from: "a@x.test", to: ["b@y.test"] },
      messageId: "<m2@x.test>",
    }),
  ).rejects.toThrow();
  transport.close();
});

test("the SES mailbox simulator's addresses map to SES's outcomes", () => {
  const types = (addr: string) =>
    simulatedOutcomes(addr).map((o) => `${o.type}${o.bounceType ? `:${o.bounceType}:${o.bounceSubType}` : ""}`);
  expect(types("success@simulator.amazonses.com")).toEqual(["Delivery"]);
  expect(types("success+a1@simulator.amazonses.com")).toEqual(["Delivery"]);
  expect(types("ooto@simulator.amazonses.com")).toEqual(["Delivery"]);
  expect(types("bounce+x@simulator.amazonses.com")).toEqual(["Bounce:Permanent:General"]);
  expect(types("suppressionlist@simulator.amazonses.com")).toEqual(["Bounce:Permanent:OnAccountSuppressionList"]);
  expect(types("complaint@simulator.amazonses.com")).toEqual(["Delivery", "Complaint"]);
  expect(types("anyone@example.com")).toEqual(["Delivery"]);
});

test("the SES transport sends the raw signed message through the SESv2 API (a loopback endpoint)", async () => {
  const { createServer } = await import("node:http");
  const { sesTransport } = await import("@/lib/providers/mail/ses");
  const seen: { method?: string; url?: string; auth?: string; body?: Record<string, unknown> } = {};
  const api = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      Object.assign(seen, {
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ MessageId: "0100018c-ses-id" }));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const address = api.address();
  process.env.AWS_ACCESS_KEY_ID = "AKIATEST";
  process.env.AWS_SECRET_ACCESS_KEY = "secret";
  try {
    const transport = sesTransport({
      region: "eu-west-1",
      configurationSet: "svc-events",
      endpoint: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    });
    const raw = Buffer.from("From: a@x.test\r\nTo: b@y.test\r\nSubject: via ses\r\n\r\nbody\r\n");
    const result = await transport.send({
      raw,
      envelope: { from: "a@x.test", to: ["b@y.test"] },
      messageId: "<m3@x.test>",
    });
    expect(result).toEqual({ providerMessageId: "0100018c-ses-id", provider: "ses", outcomes: [] });
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/v2/email/outbound-emails");
    expect(seen.auth).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIATEST\/\d{8}\/eu-west-1\/ses\/aws4_request/);
    expect(seen.body).toMatchObject({
      FromEmailAddress: "a@x.test",
      Destination: { ToAddresses: ["b@y.test"] },
      ConfigurationSetName: "svc-events",
    });
    expect(Buffer.from(String((seen.body?.Content as { Raw: { Data: string } }).Raw.Data), "base64").toString()).toBe(
      raw.toString(),
    );
  } finally {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    api.close();
  }
});
