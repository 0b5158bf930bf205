import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { env } from "@/lib/env";
import type { PhoneCall } from "@/lib/phone/contracts";
import { twilioSignature } from "@/lib/providers/telephony/signature";
import { type AppServer, startAppServer } from "./app-server";
import { startTwilioFake, type TwilioFake } from "./fakes/twilio";
import { call, newInbox, newOrg, type TestOrg } from "./harness";

/**
 * The Twilio telephony adapter (lib/providers/telephony/twilio.ts) against the loopback fake of
 * Twilio's REST API (tests/fakes/twilio.ts): TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_API_URL
 * are set for this file (env is parsed once; the tests set its fields, as telegram.test.ts does), so
 * the adapter is the provider. The fake checks the adapter's basic auth and wire format; the service
 * checks the fake's `X-Twilio-Signature` on its callbacks (the app's routes behind a loopback
 * listener, registered as PUBLIC_BASE_URL): the signature is checked both ways.
 */

let fake: TwilioFake;
let app: AppServer;
const saved = {
  sid: env.TWILIO_ACCOUNT_SID,
  token: env.TWILIO_AUTH_TOKEN,
  api: env.TWILIO_API_URL,
  base: env.PUBLIC_BASE_URL,
};

beforeAll(async () => {
  fake = await startTwilioFake();
  app = await startAppServer();
  env.TWILIO_ACCOUNT_SID = fake.accountSid;
  env.TWILIO_AUTH_TOKEN = fake.authToken;
  env.TWILIO_API_URL = fake.url;
  env.PUBLIC_BASE_URL = app.url;
  await newInbox(await newOrg(), "warm");
}, 120_000);

afterAll(async () => {
  env.TWILIO_ACCOUNT_SID = saved.sid;
  env.TWILIO_AUTH_TOKEN = saved.token;
  env.TWILIO_API_URL = saved.api;
  env.PUBLIC_BASE_URL = saved.base;
  await app?.close();
  await fake?.close();
});

const events = () => `${app.url}/v1/providers/twilio/events`;
const requestsTo = (path: string) => fake.requests.filter((r) => r.path === path);

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} never happened`);
}

/** Searches the fake's inventory and provisions its first free number, bound to a new inbox. */
async function provisioned(org: TestOrg) {
  const inbox = await newInbox(org, "sms");
  const search = await call("GET", "/v1/phone/numbers/available?country=US&type=local", { key: org.secret });
  expect(search.status, JSON.stringify(search.body)).toBe(200);
  const phoneNumber = (search.body.data as { phoneNumber: string }[])[0]?.phoneNumber;
  const made = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber, inboxId: inbox.id } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { inbox, number: made.body as { id: string; phoneNumber: string; status: string; provider: string } };
}

describe("numbers", () => {
  test("search reads Twilio's inventory; a Trial account's numbers are masked and not purchasable", async () => {
    const org = await newOrg();
    const res = await call("GET", "/v1/phone/numbers/available?country=US&type=local&contains=55501", {
      key: org.secret,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data[0]).toMatchObject({
      countryCode: "US",
      numberType: "local",
      purchasable: true,
      locality: "San Francisco",
      region: "CA",
      capabilities: ["voice", "sms"],
    });
    expect(res.body.data[0].phoneNumber).toMatch(/^\+1415555010\d$/);
    const asked = requestsTo("/AvailablePhoneNumbers/US/Local.json").at(-1);
    expect(asked?.query).toMatchObject({ Contains: "55501" });

    fake.accountType = "Trial";
    try {
      const trial = await call("GET", "/v1/phone/numbers/available?country=US&type=toll_free", { key: org.secret });
      expect(trial.status).toBe(200);
      expect(trial.body.data[0]).toMatchObject({ purchasable: false, numberType: "toll_free" });
      expect(trial.body.data[0].phoneNumber).toMatch(/^\+1800555XXXX$/);
      const refused = await call("POST", "/v1/phone/numbers", {
        key: org.secret,
        body: { phoneNumber: "+18005550101" },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
    } finally {
      fake.accountType = "Full";
    }
  });

  test("Twilio's refusal of a purchase is a 400 with its message; a 5xx or an unreachable API is 502", async () => {
    const org = await newOrg();
    fake.failNext(
      "/IncomingPhoneNumbers.json",
      400,
      21631,
      "Phone Number Requires an Address but the 'AddressSid' parameter was empty.",
    );
    const refused = await call("POST", "/v1/phone/numbers", { key: org.secret, body: { phoneNumber: "+14155550118" } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error.message).toContain("21631");
    expect(refused.body.error.message).toContain("Requires an Address");

    fake.failNext("/AvailablePhoneNumbers/US/Local.json", 503, 20500, "Service Unavailable");
    const down = await call("GET", "/v1/phone/numbers/available?country=US&type=local", { key: org.secret });
    expect(down.status).toBe(502);
    expect(down.body.error.code).toBe("provider_unavailable");

    env.TWILIO_API_URL = "http://127.0.0.1:9"; // nothing listens on the discard port
    try {
      const unreachable = await call("GET", "/v1/phone/numbers/available?country=US", { key: org.secret });
      expect(unreachable.status).toBe(502);
      expect(unreachable.body.error.code).toBe("provider_unavailable");
    } finally {
      env.TWILIO_API_URL = fake.url;
    }
  });
});

describe("search → provision → SMS → signed status callbacks → release", () => {
  test("end to end through the fake, its callbacks verified by the service", async () => {
    const org = await newOrg();
    const { inbox, number } = await provisioned(org);
    expect(number.status).toBe("active");
    const bought = fake.owned.get(number.phoneNumber);
    expect(bought?.form).toMatchObject({
      PhoneNumber: number.phoneNumber,
      SmsUrl: events(),
      SmsMethod: "POST",
      StatusCallback: events(),
      VoiceUrl: events(),
    });

    // The send reaches the fake as Twilio's form fields, with basic auth (the fake answers 401 otherwise).
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "sms", to: "+13125550123", text: "Your code is 4711" },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const form = requestsTo("/Messages.json").at(-1)?.form;
    expect(form).toEqual({
      To: "+13125550123",
      From: number.phoneNumber,
      Body: "Your code is 4711",
      StatusCallback: events(),
    });
    const read = () => call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret });
    const queued = (await read()).body.message;
    const messageSid = queued.channelMetadata.providerMessageId as string;
    expect(messageSid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(queued.channelMetadata.provider).toBe("twilio");

    const status = (MessageStatus: string, extra: Record<string, string> = {}) => ({
      AccountSid: fake.accountSid,
      ApiVersion: "2010-04-01",
      MessageSid: messageSid,
      SmsSid: messageSid,
      MessageStatus,
      SmsStatus: MessageStatus,
      From: number.phoneNumber,
      To: "+13125550123",
      ...extra,
    });
    expect(await fake.callback(events(), status("sent"))).toBe(200);
    expect(await fake.callback(events(), status("delivered"))).toBe(200);
    const delivered = await until(read, (r) => r.body.message.deliveryStatus === "delivered", "delivered");
    expect(delivered.body.message.channelMetadata).toMatchObject({ status: "delivered", toNumber: "+13125550123" });

    // Wrongly signed (another token), unsigned, or another account's: 401, and nothing changes.
    const failed = status("failed", { ErrorCode: "30008" });
    expect(await fake.callback(events(), failed, { token: "0".repeat(32) })).toBe(401);
    expect(await fake.callback(events(), failed, { signature: "" })).toBe(401);
    expect(await fake.callback(events(), { ...failed, AccountSid: `AC${"1".repeat(32)}` })).toBe(401);
    const after = (await read()).body.message;
    expect(after.deliveryStatus).toBe("delivered");
    expect(after.channelMetadata.errorCode ?? null).toBeNull();

    // Release: the number is deleted at Twilio.
    const released = await call("POST", `/v1/phone/numbers/${number.id}/release`, { key: org.secret });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body.status).toBe("released");
    expect(requestsTo(`/IncomingPhoneNumbers/${bought?.sid}.json`).map((r) => r.method)).toEqual(["DELETE"]);
    expect(fake.owned.has(number.phoneNumber)).toBe(false);
  });

  test("an SMS Twilio refuses at the send fails with Twilio's code and message", async () => {
    const org = await newOrg();
    const { inbox, number } = await provisioned(org);
    fake.failNext("/Messages.json", 400, 21610, "Attempt to send to unsubscribed recipient");
    const sent = await call("POST", "/v1/messages", {
      key: org.secret,
      body: { inboxId: inbox.id, channel: "sms", to: "+13125550124", text: "Hello" },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const failed = await until(
      () => call("GET", `/v1/messages/${sent.body.id}`, { key: org.secret }),
      (r) => r.body.message.deliveryStatus === "failed",
      "failed",
    );
    expect(failed.body.message.channelMetadata).toMatchObject({
      errorCode: 21610,
      error: "Attempt to send to unsubscribed recipient",
    });
    await call("POST", `/v1/phone/numbers/${number.id}/release`, { key: org.secret });
  });
});

describe("calls", () => {
  test("a call is placed through Calls.json and moved by the fake's signed call status callbacks", async () => {
    const org = await newOrg();
    const { number } = await provisioned(org);
    const res = await call("POST", "/v1/phone/calls", {
      key: org.secret,
      body: {
        fromNumberId: number.id,
        to: "+13125550150",
        instructions: "Confirm the appointment.",
        greeting: "Hello from the clinic.",
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const placed = requestsTo("/Calls.json").at(-1)?.form;
    expect(placed).toMatchObject({
      To: "+13125550150",
      From: number.phoneNumber,
      StatusCallback: events(),
      StatusCallbackMethod: "POST",
      StatusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
    });
    expect(placed?.Twiml).toContain("<Say");
    expect(placed?.Twiml).toContain("Hello from the clinic.");

    const callSid = fake.placedCalls.at(-1)?.sid ?? "";
    expect(callSid).toMatch(/^CA[0-9a-f]{32}$/);
    const read = () => call("GET", `/v1/phone/calls/${res.body.id}`, { key: org.secret });
    const callback = (CallStatus: string, extra: Record<string, string> = {}, opts: { token?: string } = {}) =>
      fake.callback(
        events(),
        {
          AccountSid: fake.accountSid,
          ApiVersion: "2010-04-01",
          CallSid: callSid,
          CallStatus,
          From: number.phoneNumber,
          To: "+13125550150",
          Direction: "outbound-api",
          ...extra,
        },
        opts,
      );
    // The call's sid is stored after the commit: a callback before that is 409 and retried by Twilio.
    await until(
      () => callback("ringing"),
      (s) => s === 200,
      "ringing accepted",
    );
    expect((await read()).body.status).toBe("ringing");
    expect(await callback("in-progress", {}, { token: "0".repeat(32) })).toBe(401);
    expect((await read()).body.status).toBe("ringing");
    expect(await callback("in-progress")).toBe(200);
    expect(await callback("completed", { CallDuration: "42" })).toBe(200);
    const done = await until(read, (r) => r.body.status === "completed", "completed");
    expect(done.body.timeline.map((t: { status: string }) => t.status)).toEqual([
      "queued",
      "ringing",
      "in_progress",
      "completed",
    ]);
  });

  test("an inbound call: Twilio's signed voice webhook is recorded and answered in TwiML (text/xml); a bad signature is 401 and records nothing", async () => {
    const org = await newOrg();
    const { number } = await provisioned(org);
    await call("PATCH", `/v1/phone/numbers/${number.id}`, {
      key: org.secret,
      body: { inboundGreeting: "You reached the front desk & <Bakery>.", inboundLanguage: "en-GB" },
    });
    const callSid = `CA${randomBytes(16).toString("hex")}`;
    const voice = (CallStatus: string, opts: { token?: string; signature?: string } = {}) =>
      fake.webhook(
        events(),
        {
          AccountSid: fake.accountSid,
          ApiVersion: "2010-04-01",
          CallSid: callSid,
          CallStatus,
          From: "+13125550151",
          To: number.phoneNumber,
          Direction: "inbound",
          CallerCountry: "US",
        },
        opts,
      );
    const listed = () => call("GET", "/v1/phone/calls", { key: org.secret }).then((r) => r.body.data as PhoneCall[]);

    for (const bad of [{ token: "0".repeat(32) }, { signature: "" }]) {
      const refused = await voice("ringing", bad);
      expect(refused.status).toBe(401);
      expect(refused.contentType).toContain("application/json");
      expect(JSON.parse(refused.text).error.code).toBe("invalid_signature");
    }
    expect(await listed()).toHaveLength(0);

    const answered = await voice("ringing");
    expect(answered.status, answered.text).toBe(200);
    expect(answered.contentType).toBe("text/xml; charset=utf-8");
    expect(answered.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
        '<Say language="en-GB">You reached the front desk &amp; &lt;Bakery&gt;.</Say>' +
        '<Pause length="600"/><Hangup/></Response>',
    );
    // Twilio retrying the webhook (its fallback): the same TwiML, the call recorded once.
    const again = await voice("ringing");
    expect(again.status).toBe(200);
    expect(again.text).toBe(answered.text);
    // Answered by the reply itself: nothing asked of the Calls API.
    expect(fake.updatedCalls.filter((c) => c.sid === callSid)).toHaveLength(0);
    const calls = await listed();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      direction: "inbound",
      status: "ringing",
      from: "+13125550151",
      language: "en-GB",
    });

    // The number's StatusCallback reports the end (Twilio sends only `completed` for an inbound call).
    expect(await voice("completed")).toMatchObject({ status: 200 });
    const done = await until(listed, (c) => c[0]?.status === "completed", "completed");
    expect(done[0]?.timeline.map((t) => t.status)).toEqual(["ringing", "completed"]);
  });

  test("a call to a number that takes none (bound to no inbox or agent) is rejected in TwiML and not recorded", async () => {
    const org = await newOrg();
    const { number } = await provisioned(org);
    const unbound = await call("PATCH", `/v1/phone/numbers/${number.id}`, { key: org.secret, body: { inboxId: null } });
    expect(unbound.status, JSON.stringify(unbound.body)).toBe(200);
    const res = await fake.webhook(events(), {
      AccountSid: fake.accountSid,
      CallSid: `CA${randomBytes(16).toString("hex")}`,
      CallStatus: "ringing",
      From: "+13125550152",
      To: number.phoneNumber,
      Direction: "inbound",
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe("text/xml; charset=utf-8");
    expect(res.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="rejected"/></Response>');
    expect((await call("GET", "/v1/phone/calls", { key: org.secret })).body.data).toHaveLength(0);
  });
});

describe("behind a proxy", () => {
  test("the signature is checked over PUBLIC_BASE_URL + path, not the URL the request reached; unset, over the request's own URL", async () => {
    const inbound = () => {
      const sid = `SM${randomBytes(16).toString("hex")}`;
      return {
        AccountSid: fake.accountSid,
        MessageSid: sid,
        SmsSid: sid,
        SmsStatus: "received",
        From: "+13125550160",
        To: "+13125550161",
        Body: "hello",
      };
    };
    const own = events();
    const publicUrl = "https://sms.example.com/v1/providers/twilio/events";
    env.PUBLIC_BASE_URL = "https://sms.example.com/";
    try {
      // Twilio signs the URL it called (the proxy's); the request reaches this service at its own address.
      const p = inbound();
      const taken = await fake.webhook(own, p, { signature: twilioSignature(fake.authToken, publicUrl, p) });
      expect(taken.status, taken.text).toBe(200);
      expect(await fake.callback(own, inbound())).toBe(401);
    } finally {
      env.PUBLIC_BASE_URL = undefined;
    }
    try {
      expect(await fake.callback(own, inbound())).toBe(200);
      const p = inbound();
      expect(await fake.callback(own, p, { signature: twilioSignature(fake.authToken, publicUrl, p) })).toBe(401);
    } finally {
      env.PUBLIC_BASE_URL = app.url;
    }
  });
});
