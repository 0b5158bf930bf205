import { describe, expect, test } from "vitest";
import { getDb } from "@/db";
import type { Subprocessor } from "@/db/schema";
import { configuredSubprocessors, publishSubprocessors } from "@/lib/compliance/residency";
import { call, newKey, newOrg } from "./harness";

/** `GET /v1/compliance/residency`: the posture from configuration; the subprocessor list's version only increases and a change emits subprocessor.changed. */

const sub = (name: string, extra: Partial<Subprocessor> = {}): Subprocessor => ({
  name,
  purpose: "Testing",
  location: "eu-central-1",
  jurisdiction: "DE",
  url: null,
  source: "declared",
  ...extra,
});

describe("residency", () => {
  test("the embedded defaults: this region, no subprocessors, no US egress; compliance:read required", async () => {
    const org = await newOrg();
    const reader = await newKey(org, { scopes: ["compliance:read"] });
    const res = await call("GET", "/v1/compliance/residency", { key: reader.secret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: "svc.residency.v1",
      primaryRegion: "local",
      dataResidency: "local",
      noUsEgress: true,
      cloudActExposed: false,
      subprocessors: configuredSubprocessors(),
      controllerParent: null,
      enforcement: { storage: "filesystem", mailTransport: "embedded", outboundHttp: "guarded" },
    });
    expect(res.body.subprocessorListVersion).toBeGreaterThanOrEqual(1);
    const other = await newKey(org, { scopes: ["compliance:write"] });
    expect((await call("GET", "/v1/compliance/residency", { key: other.secret })).status).toBe(403);
  }, 120_000);

  test("a changed list is the next version with subprocessor.changed for every organization; the same list is no change; going back is a new version", async () => {
    const org = await newOrg();
    const db = await getDb();
    const base = await publishSubprocessors(db);
    const v0 = base.version;
    const withAws = [
      sub("Amazon Web Services (SES)", { location: "us-east-1", jurisdiction: "US", source: "configuration" }),
      sub("Mailgun EU"),
    ];
    const changed = await publishSubprocessors(db, withAws);
    expect(changed).toMatchObject({ version: v0 + 1, changed: true });
    expect(await publishSubprocessors(db, withAws)).toMatchObject({ version: v0 + 1, changed: false });

    const events = (await call("GET", "/v1/events?type=subprocessor.changed&limit=100", { key: org.secret })).body.data;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      partitionKey: "residency",
      data: {
        subprocessorListVersion: v0 + 1,
        previousVersion: v0,
        added: ["Amazon Web Services (SES)", "Mailgun EU"],
        removed: [],
      },
    });

    // Reading the posture publishes the configuration's list again: back to it is a newer version.
    const res = await call("GET", "/v1/compliance/residency", { key: org.secret });
    expect(res.body).toMatchObject({
      subprocessorListVersion: v0 + 2,
      subprocessors: base.subprocessors,
      noUsEgress: true,
    });
    const again = (await call("GET", "/v1/events?type=subprocessor.changed&limit=100", { key: org.secret })).body.data;
    expect(again.at(-1)).toMatchObject({
      data: { subprocessorListVersion: v0 + 2, removed: ["Amazon Web Services (SES)", "Mailgun EU"] },
    });
  });

  test("concurrent publishers of one change agree on one version", async () => {
    const db = await getDb();
    const before = (await publishSubprocessors(db)).version;
    const list = [sub(`Concurrent ${Date.now()}`)];
    const results = await Promise.all(Array.from({ length: 6 }, () => publishSubprocessors(db, list)));
    expect(new Set(results.map((r) => r.version))).toEqual(new Set([before + 1]));
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    await publishSubprocessors(db);
  });
});
