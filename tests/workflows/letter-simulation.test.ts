import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { env } from "@/lib/env";
import { call, newOrg } from "../harness";
import { type Harness, startHarness, waitForRun } from "./harness";

/** The simulated print centre's clock: the simulate-letter workflow, run by the executor, moves a test letter to delivered. */
let h: Harness;
const saved = env.LETTER_SIM_STEP_MS;
beforeAll(async () => {
  env.LETTER_SIM_STEP_MS = 100;
  h = await startHarness();
  await h.serveApp(inngest, functions);
  h.executor.start();
});
afterAll(async () => {
  env.LETTER_SIM_STEP_MS = saved;
  await h.close();
});

test("a test letter walks queued → delivered on the workflow's clock, one event per status", async () => {
  const org = await newOrg();
  const pdfBase64 = readFileSync(new URL("../fixtures/letters/a4-good.pdf", import.meta.url)).toString("base64");
  const to = {
    name: "Erika Mustermann",
    street: "Hauptstraße",
    houseNumber: "5",
    postalCode: "10115",
    city: "Berlin",
    country: "DE",
  };
  const made = await call("POST", "/v1/letters", { key: org.secret, body: { to, pdfBase64 } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await waitForRun(
    "svc-simulate-letter",
    (r) => r.status === "completed" && (r.event.data as { letterId: string }).letterId === made.body.id,
    60_000,
  );
  const got = await call("GET", `/v1/letters/${made.body.id}`, { key: org.secret });
  expect(got.body.status).toBe("delivered");
  const events = await call("GET", `/v1/letters/${made.body.id}/events`, { key: org.secret });
  expect(events.body.data.map((e: { status: string }) => e.status)).toEqual([
    "queued",
    "processing",
    "printable",
    "submitted",
    "in_transit",
    "delivered",
  ]);
});
