/**
 * Seeds one organization with ROWS threads of one message each for `bench/console.ts`, through the
 * services where one exists (account, organization, inbox) and bulk inserts for the rows. Runs as
 * its own process (one database per process) and prints the session cookie as JSON.
 */
import { randomUUID } from "node:crypto";
import { encode } from "next-auth/jwt";
import { closeDb, getDb } from "@/db";
import { messages, threads } from "@/db/schema";
import { uuidv7 } from "@/db/ids";
import { registerUser } from "@/lib/account/users";
import { consolePrincipal } from "@/lib/auth/roles";
import { authSecret } from "@/lib/console/secret";
import { env } from "@/lib/env";
import { createInbox } from "@/lib/inboxes/service";
import { newOrganization } from "@/lib/organizations/console";

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const db = await getDb();
const email = `bench-${randomUUID().slice(0, 8)}@example.test`;
const user = await registerUser(db, { email, password: "bench password 123" });
const { organization } = await newOrganization(
  db,
  { userId: user.id, email, actor: `user:${user.id}`, ip: null },
  { name: "Console bench" },
);
const principal = consolePrincipal({ orgId: organization.id, userId: user.id, role: "owner" });
const { inbox } = await createInbox(db, principal, {
  address: `bench-${randomUUID().slice(0, 8)}@${env.SHARED_DOMAIN}`,
});

const start = Date.now() - ROWS * 60_000;
for (let offset = 0; offset < ROWS; offset += 1000) {
  const batch = Array.from({ length: Math.min(1000, ROWS - offset) }, (_, i) => {
    const n = offset + i;
    const at = new Date(start + n * 60_000);
    return { threadId: uuidv7(), messageId: uuidv7(), n, at };
  });
  await db.insert(threads).values(
    batch.map((b) => ({
      id: b.threadId,
      orgId: organization.id,
      inboxId: inbox.id,
      subject: `Bench thread ${b.n}`,
      messageCount: 1,
      lastMessageAt: b.at,
      createdAt: b.at,
    })),
  );
  await db.insert(messages).values(
    batch.map((b) => ({
      id: b.messageId,
      orgId: organization.id,
      inboxId: inbox.id,
      threadId: b.threadId,
      direction: b.n % 2 === 0 ? ("inbound" as const) : ("outbound" as const),
      status: b.n % 2 === 0 ? ("received" as const) : ("sent" as const),
      channel: "email" as const,
      fromAddress: b.n % 2 === 0 ? `sender${b.n}@example.com` : inbox.address,
      to: [b.n % 2 === 0 ? inbox.address : `rcpt${b.n}@example.com`],
      cc: [],
      bcc: [],
      subject: `Bench thread ${b.n}`,
      textBody: `Message body number ${b.n}.`,
      messageIdHeader: `<bench-${b.messageId}@example.com>`,
      references: [],
      sizeBytes: 512,
      receivedAt: b.at,
      sentAt: b.n % 2 === 0 ? null : b.at,
      createdAt: b.at,
    })),
  );
}

const name = "authjs.session-token";
const token = await encode({ token: { sub: user.id, email }, secret: await authSecret(db), salt: name, maxAge: 3600 });
await closeDb();
console.log(
  JSON.stringify({
    cookie: `${name}=${token}; svc_org=${organization.id}`,
    orgId: organization.id,
    inboxId: inbox.id,
    rows: ROWS,
  }),
);
