import { readFileSync } from "node:fs";
import { cleanObject, defaultBucketId, newShareLink, uploadObject } from "./bucket-helpers";
import { call, newInbox, newKey, type TestOrg } from "./harness";

/**
 * A real resource of an organization for each kind of path parameter of the key operations, made
 * through the API: the generated suites (security, fuzz) fill paths with them. A new kind of path
 * parameter needs one factory here (the suites fail until it has one).
 */
export const RESOURCE_FACTORIES: Record<string, (org: TestOrg) => Promise<string>> = {
  keyId: async (org) => (await newKey(org, { scopes: ["keys:read"] })).id,
  inboxId: async (org) => (await newInbox(org)).id,
  waitId: async (org) => {
    const inbox = await newInbox(org);
    const made = await call("POST", `/v1/inboxes/${inbox.id}/waits`, { key: org.secret, body: { timeoutSec: 60 } });
    if (made.status !== 201) throw new Error(`waitId: ${made.status} ${JSON.stringify(made.body)}`);
    return made.body.waitId as string;
  },
  // A letter template (its HTML is not rendered until used).
  templateId: async (org) => {
    const made = await call("POST", "/v1/letters/templates", {
      key: org.secret,
      body: { name: "t", html: "<p>{{to.name}}</p>", variables: ["greeting"] },
    });
    if (made.status !== 200) throw new Error(`templateId: ${made.status} ${JSON.stringify(made.body)}`);
    return made.body.id as string;
  },
  // A test letter from the committed fixture (made by Chromium: A4, fonts embedded, address in the left window).
  letterId: async (org) => {
    const pdfBase64 = readFileSync(new URL("./fixtures/letters/a4-good.pdf", import.meta.url)).toString("base64");
    const to = {
      name: "Erika Mustermann",
      street: "Hauptstraße",
      houseNumber: "5",
      postalCode: "10115",
      city: "Berlin",
      country: "DE",
    };
    const made = await call("POST", "/v1/letters", { key: org.secret, body: { to, pdfBase64 } });
    if (made.status !== 201) throw new Error(`letterId: ${made.status} ${JSON.stringify(made.body)}`);
    return made.body.id as string;
  },
  // A letter batch of one recipient (stored at once; its letter is made by the fan-out, if it runs).
  batchId: async (org) => {
    const templateId = await RESOURCE_FACTORIES.templateId?.(org);
    const to = {
      name: "Erika Mustermann",
      street: "Hauptstraße",
      houseNumber: "5",
      postalCode: "10115",
      city: "Berlin",
      country: "DE",
    };
    const made = await call("POST", "/v1/letters/batch", {
      key: org.secret,
      body: { templateId, recipients: [{ to }] },
    });
    if (made.status !== 202) throw new Error(`batchId: ${made.status} ${JSON.stringify(made.body)}`);
    return made.body.id as string;
  },
  // A number of the simulated carrier, released at once: numbers are unique across the deployment
  // and a persistent database would run out of them (a released number keeps its id and answers).
  numberId: async (org) => {
    const search = await call("GET", "/v1/phone/numbers/available?country=GB&type=local&limit=100", {
      key: org.secret,
    });
    const data = search.body.data as { phoneNumber: string }[];
    const phoneNumber = data[Math.floor(Math.random() * data.length)]?.phoneNumber;
    const made = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber } });
    if (made.status !== 201) throw new Error(`numberId: ${made.status} ${JSON.stringify(made.body)}`);
    await call("POST", `/v1/phone/numbers/${made.body.id}/release`, { key: org.secret });
    return made.body.id as string;
  },
  // A call from a US number of the simulated carrier (to the busy magic callee, so it ends at
  // once), the number released right after: the call keeps its id and answers.
  callId: async (org) => {
    const search = await call("GET", "/v1/phone/numbers/available?country=US&type=local&limit=100", {
      key: org.secret,
    });
    const data = search.body.data as { phoneNumber: string }[];
    const phoneNumber = data[Math.floor(Math.random() * data.length)]?.phoneNumber;
    const made = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber } });
    if (made.status !== 201) throw new Error(`callId: ${made.status} ${JSON.stringify(made.body)}`);
    const placed = await call("POST", "/v1/phone/calls", {
      key: org.secret,
      body: { fromNumberId: made.body.id, to: "+12025550191", instructions: "Say hello." },
    });
    await call("POST", `/v1/phone/numbers/${made.body.id}/release`, { key: org.secret });
    if (placed.status !== 201) throw new Error(`callId: ${placed.status} ${JSON.stringify(placed.body)}`);
    return placed.body.id as string;
  },
  webhookId: async (org) => {
    const res = await call("POST", "/v1/webhooks", {
      key: org.secret,
      body: { url: "http://127.0.0.1:9/hook", events: ["message.sent"] },
    });
    return res.body.webhook.id as string;
  },
  appId: async (org) => {
    const res = await call("POST", "/v1/slack/apps", {
      key: org.secret,
      body: {
        origin: "byo",
        appId: "A0SECURITY1",
        clientId: "1.2",
        clientSecret: "resource-client-secret",
        signingSecret: "resource-signing-secret",
      },
    });
    return res.body.app.id as string;
  },
  messageId: async (org) => (await sentMessage(org)).id,
  emailId: async (org) => (await sentMessage(org)).id,
  threadId: async (org) => (await sentMessage(org)).threadId,
  attachmentId: async (org) => (await sentMessage(org)).attachmentId,
  contactRef: async (org) => (await newContact(org)).id,
  agentId: async (org) => (await newAgent(org)).agentId,
  handleId: async (org) => (await newContact(org)).handles[0]?.id ?? "",
  idOrSlug: async (org) => (await newTemplate(org)).id,
  audienceId: async (org) => (await newAudience(org)).id,
  memberId: async (org) => (await newAudience(org, ["member@example.com"])).memberIds[0] ?? "",
  broadcastId: async (org) => {
    const audience = await newAudience(org);
    const inbox = await newInbox(org);
    const res = await call("POST", `/v1/audiences/${audience.id}/send`, {
      key: org.secret,
      body: { inboxId: inbox.id, subject: "News", text: "x" },
    });
    return res.body.id as string;
  },
  version: async () => "1",
  logId: async (org) => {
    // A recorded request of the organization (the whoami it makes first is in its log).
    await call("GET", "/v1/whoami", { key: org.secret });
    const res = await call("GET", "/v1/logs?limit=1", { key: org.secret });
    return res.body.logs[0]?.id ?? "";
  },
  bucketId: (org) => defaultBucketId(org),
  objectId: async (org) => (await uploadObject(org)).objectId,
  linkId: async (org) => (await newShareLink(org)).link.id,
  bundleId: async (org) => {
    const res = await call("POST", "/v1/share-links/bundles", {
      key: org.secret,
      body: { objectIds: [(await cleanObject(org)).objectId] },
    });
    return res.body.id as string;
  },
  budgetId: async (org) => {
    const res = await call("PUT", "/v1/budgets", {
      key: org.secret,
      body: { scope: "account", limits: { maxSendsPerDay: 1000 } },
    });
    return res.body.budget.id as string;
  },
  jobId: async (org) => {
    const res = await call("POST", "/v1/compliance/erasures", {
      key: org.secret,
      body: { address: `gone-${Math.random().toString(36).slice(2, 8)}@example.com` },
    });
    return res.body.job.id as string;
  },
  domainId: async (org) => {
    const res = await call("POST", "/v1/domains", {
      key: org.secret,
      body: { name: `sec-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.example.test` },
    });
    return res.body.domain.id as string;
  },
};

/** An audience with these members (by address). */
export async function newAudience(org: TestOrg, emails: string[] = []): Promise<{ id: string; memberIds: string[] }> {
  const res = await call("POST", "/v1/audiences", {
    key: org.secret,
    body: { name: `List ${Math.random().toString(36).slice(2, 8)}` },
  });
  if (res.status !== 200) throw new Error(`audience: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.list.id as string;
  if (emails.length === 0) return { id, memberIds: [] };
  await call("POST", `/v1/audiences/${id}/members`, {
    key: org.secret,
    body: { members: emails.map((email) => ({ email })) },
  });
  const detail = await call("GET", `/v1/audiences/${id}`, { key: org.secret });
  return { id, memberIds: (detail.body.members as { id: string }[]).map((m) => m.id) };
}

/** A person with one primary email handle. */
export async function newContact(
  org: TestOrg,
  body: Record<string, unknown> = {},
): Promise<{ id: string; alias: string | null; handles: { id: string; value: string }[] }> {
  const tag = Math.random().toString(36).slice(2, 10);
  const res = await call("POST", "/v1/contacts", {
    key: org.secret,
    body: {
      displayName: `Person ${tag}`,
      handles: [{ channel: "email", value: `person-${tag}@example.com`, isPrimary: true }],
      ...body,
    },
  });
  if (res.status !== 200) throw new Error(`contact: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.contact;
}

/** An agent passport (active, with its signing key). */
export async function newAgent(
  org: TestOrg,
  body: Record<string, unknown> = {},
): Promise<{
  id: string;
  agentId: string;
  display: string;
  keys: { kid: string; kty: "OKP"; crv: "Ed25519"; alg: "EdDSA"; x: string; status: string }[];
}> {
  const res = await call("POST", "/v1/agents", {
    key: org.secret,
    body: { display: `Agent ${Math.random().toString(36).slice(2, 8)}`, ...body },
  });
  if (res.status !== 200) throw new Error(`agent: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.agent;
}

/** A react-email template greeting `name` (version 1 current). */
export async function newTemplate(
  org: TestOrg,
  body: Record<string, unknown> = {},
): Promise<{ id: string; slug: string }> {
  const res = await call("POST", "/v1/templates", {
    key: org.secret,
    body: {
      name: `Welcome ${Math.random().toString(36).slice(2, 8)}`,
      source:
        'import { Html, Text } from "@react-email/components";\nexport default function W({ name }) { return <Html><Text>Hello {name}</Text></Html>; }',
      subject: "Hi {{ name }}",
      variables: { type: "object", properties: { name: { type: "string", maxLength: 40, default: "there" } } },
      ...body,
    },
  });
  if (res.status !== 200) throw new Error(`template: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.template;
}

/** An outbound message with an attachment, in its own thread. */
export async function sentMessage(org: TestOrg): Promise<{ id: string; threadId: string; attachmentId: string }> {
  const inbox = await newInbox(org);
  const sent = await call("POST", "/v1/messages", {
    key: org.secret,
    body: {
      inboxId: inbox.id,
      to: "x@example.com",
      text: "x",
      attachments: [{ filename: "a.txt", contentBase64: "aGk=" }],
    },
  });
  const msg = (await call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret })).body.message;
  return { id: msg.id, threadId: msg.threadId, attachmentId: msg.attachments[0].id };
}

/** The names of a path template's parameters: `/v1/inboxes/{inboxId}` → `["inboxId"]`. */
export function paramNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
}
