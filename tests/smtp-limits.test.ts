import net from "node:net";
import { Readable } from "node:stream";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getDb } from "@/db";
import { inboundFailureReply, InboundRejection } from "@/lib/channels/email/inbound-policy";
import { type SmtpReceiver, type SmtpReceiverOptions, startSmtpReceiver } from "@/lib/providers/mail/smtp-receiver";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * Issue 10 #6 (the receiver's memory and per-client limits) and #10 (permanent 5xx for mail that
 * can never be accepted), against the real receiver over TCP with a raw SMTP client and nodemailer.
 */
let org: TestOrg;
let inbox: { id: string; address: string };
const receivers: SmtpReceiver[] = [];

beforeAll(async () => {
  await getDb();
  org = await newOrg();
  inbox = await newInbox(org, "limits");
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(opts: Partial<SmtpReceiverOptions> = {}): Promise<SmtpReceiver> {
  const r = await startSmtpReceiver({ port: 0, host: "127.0.0.1", maxBytes: 200_000, name: "mx.test", ...opts });
  receivers.push(r);
  return r;
}

/** A raw SMTP client: every reply line the server sends, and whether the server closed. */
class RawClient {
  readonly lines: string[] = [];
  closed = false;
  private buffer = "";
  private waiters: (() => void)[] = [];
  private constructor(readonly socket: net.Socket) {
    socket.on("data", (d: Buffer) => {
      this.buffer += d.toString("latin1");
      let i: number;
      while ((i = this.buffer.indexOf("\r\n")) >= 0) {
        this.lines.push(this.buffer.slice(0, i));
        this.buffer = this.buffer.slice(i + 2);
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => undefined); // writes after the server closed: EPIPE / ECONNRESET
  }
  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  static async connect(port: number): Promise<RawClient> {
    const socket = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return new RawClient(socket);
  }
  /** The next complete reply (the last line of a multi-line one), or null once the server closed. */
  async reply(): Promise<string | null> {
    for (;;) {
      const idx = this.lines.findIndex((l) => /^\d{3} /.test(l));
      if (idx >= 0) return this.lines.splice(0, idx + 1).pop() ?? null;
      if (this.closed) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
  async command(line: string): Promise<string | null> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }
  /** Writes without waiting for a reply; false when the socket can take no more now. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed || !this.socket.writable) return resolve();
      if (this.socket.write(data)) resolve();
      else this.socket.once("drain", () => resolve());
      this.waiters.push(resolve); // a reply or a close also unblocks the writer
    });
  }
  /** Greeting, EHLO, MAIL FROM, RCPT TO, DATA (354). */
  async startData(rcpt: string): Promise<void> {
    expect(await this.reply()).toMatch(/^220 /);
    expect(await this.command("EHLO client.example.test")).toMatch(/^250 /);
    expect(await this.command("MAIL FROM:<sender@example.test>")).toMatch(/^250 /);
    expect(await this.command(`RCPT TO:<${rcpt}>`)).toMatch(/^250 /);
    expect(await this.command("DATA")).toMatch(/^354 /);
  }
}

test("an oversized message is answered 552 at once, buffered no further than the limit, and the connection closed", async () => {
  const r = await receiver({ maxBytes: 200_000 });
  const client = await RawClient.connect(r.port);
  await client.startData(inbox.address);
  await client.write(`From: a@example.test\r\nTo: ${inbox.address}\r\nSubject: flood\r\n\r\n`);
  const line = `${"x".repeat(998)}\r\n`;
  const chunk = Buffer.from(line.repeat(64)); // 64 000 bytes
  const budget = 200 * 1024 * 1024; // what the client is prepared to send: 1 000 times the limit
  let sent = 0;
  while (sent < budget && client.lines.length === 0 && !client.closed) {
    await client.write(chunk);
    sent += chunk.length;
  }
  const reply = await client.reply();
  expect(reply).toMatch(/^552 5\.3\.4 /);
  // The reply came while the client was still streaming: it stopped long before its 200 MiB.
  expect(sent).toBeLessThan(budget / 10);
  // Never more than the limit in memory, and nothing once the connection is gone.
  expect(r.stats().peakBufferedBytes).toBeLessThanOrEqual(200_000);
  await new Promise<void>((resolve) => (client.closed ? resolve() : client.socket.once("close", () => resolve())));
  expect(r.stats().bufferedBytes).toBe(0);
  const list = await call("GET", `/v1/messages?inboxId=${inbox.id}`, { key: org.secret });
  expect(list.body.messages.some((m: { subject: string }) => m.subject === "flood")).toBe(false);
});

test("nodemailer streaming far past the limit gets 552 (and a message within it still goes through)", async () => {
  const r = await receiver({ maxBytes: 200_000 });
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: r.port,
    secure: false,
    ignoreTLS: true,
    name: "client.example.test",
  });
  let produced = 0;
  const body = new Readable({
    read() {
      if (produced > 50 * 1024 * 1024) return this.push(null);
      produced += 65_536;
      this.push(`${"y".repeat(1022)}\r\n`.repeat(64));
    },
  });
  await expect(
    transport.sendMail({ from: "a@example.test", to: inbox.address, subject: "big stream", text: body }),
  ).rejects.toMatchObject({ responseCode: 552 });
  expect(produced).toBeLessThan(50 * 1024 * 1024);
  expect(r.stats().peakBufferedBytes).toBeLessThanOrEqual(200_000);
  const ok = await transport.sendMail({
    from: "a@example.test",
    to: inbox.address,
    subject: "small after big",
    text: "fine",
  });
  expect(ok.accepted).toEqual([inbox.address]);
  expect(r.stats().bufferedBytes).toBe(0);
});

test("connections are capped per client address (421), and a slot frees when one closes", async () => {
  const r = await receiver({ maxConnectionsPerClient: 2 });
  const a = await RawClient.connect(r.port);
  const b = await RawClient.connect(r.port);
  expect(await a.reply()).toMatch(/^220 /);
  expect(await b.reply()).toMatch(/^220 /);
  const c = await RawClient.connect(r.port);
  expect(await c.reply()).toMatch(/^421 4\.7\.0 too many connections/);
  expect(await c.reply()).toBeNull(); // and closed
  expect(await a.command("QUIT")).toMatch(/^221 /);
  await new Promise<void>((resolve) => (a.closed ? resolve() : a.socket.once("close", () => resolve())));
  // The server learns of the close asynchronously; try until the slot is free (bounded).
  let d: RawClient | null = null;
  for (let i = 0; i < 50; i++) {
    const next = await RawClient.connect(r.port);
    const greeting = await next.reply();
    if (greeting?.startsWith("220 ")) {
      d = next;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(d).not.toBeNull();
  b.socket.destroy();
  d?.socket.destroy();
});

test("the total number of connections is capped (421)", async () => {
  const r = await receiver({ maxConnections: 1, maxConnectionsPerClient: 10 });
  const a = await RawClient.connect(r.port);
  expect(await a.reply()).toMatch(/^220 /);
  const b = await RawClient.connect(r.port);
  expect(await b.reply()).toMatch(/^421 /);
  a.socket.destroy();
});

test("bytes per client address per hour: the message that passes the budget is cut with 421, and so is the next MAIL FROM", async () => {
  const r = await receiver({ maxBytes: 200_000, maxBytesPerClientHour: 250_000 });
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: r.port,
    secure: false,
    ignoreTLS: true,
    name: "client.example.test",
  });
  const first = await transport.sendMail({
    from: "a@example.test",
    to: inbox.address,
    subject: "budget 1",
    text: "z".repeat(150_000),
  });
  expect(first.accepted).toEqual([inbox.address]);
  await expect(
    transport.sendMail({ from: "a@example.test", to: inbox.address, subject: "budget 2", text: "z".repeat(150_000) }),
  ).rejects.toMatchObject({ responseCode: 421 });
  await expect(
    transport.sendMail({ from: "a@example.test", to: inbox.address, subject: "budget 3", text: "z" }),
  ).rejects.toMatchObject({ responseCode: 421 });
  expect(r.stats().bufferedBytes).toBe(0);
});

function mime(parts: number): string {
  const boundary = "b0undary";
  const body = Array.from(
    { length: parts },
    (_, i) => `--${boundary}\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`,
  ).join("");
  return `From: a@example.test\r\nTo: ${inbox.address}\r\nSubject: parts ${parts}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n${body}--${boundary}--\r\n`;
}

async function sendRaw(r: SmtpReceiver, raw: string | Buffer): Promise<string | null> {
  const client = await RawClient.connect(r.port);
  await client.startData(inbox.address);
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, "latin1");
  await client.write(Buffer.concat([bytes, Buffer.from("\r\n.\r\n")]));
  const reply = await client.reply();
  client.socket.destroy();
  return reply;
}

test("mail that can never be accepted is refused permanently: a NUL byte 554, 2,000 MIME parts 552", async () => {
  const r = await receiver({ maxBytes: 2_000_000 });
  const withNul = Buffer.from(
    `From: a@example.test\r\nTo: ${inbox.address}\r\nSubject: nul\r\n\r\nbefore\u0000after\r\n`,
    "latin1",
  );
  expect(await sendRaw(r, withNul)).toMatch(/^554 5\.6\.0 .*NUL/);
  expect(await sendRaw(r, mime(2000))).toMatch(/^552 5\.3\.4 message has 2000 MIME parts/);
  // Within the limits it is accepted; a NUL that only appears once decoded (=00) is dropped.
  expect(await sendRaw(r, mime(20))).toMatch(/^250 /);
  const qp = `From: a@example.test\r\nTo: ${inbox.address}\r\nSubject: qp nul\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nbefore=00after\r\n`;
  expect(await sendRaw(r, qp)).toMatch(/^250 /);
  const list = await call("GET", `/v1/messages?inboxId=${inbox.id}&direction=inbound`, { key: org.secret });
  const stored = list.body.messages.find((m: { subject: string }) => m.subject === "qp nul");
  const full = (await call("GET", `/v1/messages/${stored.id}`, { key: org.secret })).body.message;
  expect(full.textBody.trim()).toBe("beforeafter");
  expect(list.body.messages.some((m: { subject: string }) => m.subject === "parts 2000" || m.subject === "nul")).toBe(
    false,
  );
});

test("failure replies: rejections and database data exceptions are permanent, anything else is 451", () => {
  expect(inboundFailureReply(new InboundRejection(552, "5.3.4", "too big"))).toEqual({
    code: 552,
    message: "5.3.4 too big",
    permanent: true,
  });
  const dataException = Object.assign(new Error("invalid byte sequence for encoding UTF8: 0x00"), { code: "22021" });
  expect(inboundFailureReply(dataException)).toMatchObject({ code: 554, permanent: true });
  expect(inboundFailureReply(new Error("wrapped", { cause: dataException }))).toMatchObject({
    code: 554,
    permanent: true,
  });
  expect(inboundFailureReply(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toMatchObject(
    { code: 451, permanent: false },
  );
  expect(inboundFailureReply(Object.assign(new Error("too many clients"), { code: "53300" }))).toMatchObject({
    code: 451,
    permanent: false,
  });
});
