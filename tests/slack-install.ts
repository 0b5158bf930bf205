import { randomUUID } from "node:crypto";
import { env } from "@/lib/env";
import type { SlackFake } from "./fakes/slack";
import { call, type TestOrg } from "./harness";

/** A byo Slack app of `org` registered with the fake (its secrets returned for signing events). */
export async function newSlackApp(org: TestOrg, fake: SlackFake) {
  const suffix = randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase();
  const secrets = {
    appId: `A${suffix}`,
    clientId: `${suffix}.client`,
    clientSecret: `cs-${randomUUID()}`,
    signingSecret: `ss-${randomUUID()}`,
  };
  fake.addApp({ appId: secrets.appId, clientId: secrets.clientId, clientSecret: secrets.clientSecret });
  const res = await call("POST", "/v1/slack/apps", { key: org.secret, body: { origin: "byo", ...secrets } });
  if (res.status !== 200) throw new Error(`newSlackApp: ${res.status} ${JSON.stringify(res.body)}`);
  return { app: res.body.app as { id: string; appId: string }, ...secrets };
}

/** Installs the app into a fresh workspace for `inboxId` through the install URL and the OAuth callback. */
export async function installSlack(
  org: TestOrg,
  fake: SlackFake,
  app: { app: { id: string }; clientId: string },
  inboxId: string,
) {
  const url = await call("POST", `/v1/slack/apps/${app.app.id}/install-url`, { key: org.secret, body: { inboxId } });
  if (url.status !== 200) throw new Error(`install-url: ${url.status} ${JSON.stringify(url.body)}`);
  const state = new URL(url.body.url).searchParams.get("state") ?? "";
  const team = { id: `T${randomUUID().replace(/-/g, "").slice(0, 9).toUpperCase()}`, name: "acme" };
  const code = fake.authorizeCode(app.clientId, team);
  const res = await call("GET", `/v1/providers/slack/oauth/callback?code=${code}&state=${encodeURIComponent(state)}`);
  if (res.status !== 200) throw new Error(`callback: ${res.status} ${JSON.stringify(res.body)}`);
  return { team, state, installation: res.body.installation };
}

/** Points the service at the fake's Web API; returns the restore. */
export function useSlackFake(fake: SlackFake): () => void {
  const saved = env.SLACK_API_URL;
  Object.assign(env, { SLACK_API_URL: fake.apiUrl });
  return () => Object.assign(env, { SLACK_API_URL: saved });
}
