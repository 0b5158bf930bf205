"use server";

import { runAction } from "@/lib/console/action";
import { clearAgentReputation, createAgent, revokeAgent, updateAgent } from "@/lib/agents/operations";

/** Creates a passport (and its signing key). */
export async function createAgentAction(input: unknown) {
  return runAction(createAgent, input);
}

/** Suspends or reactivates a passport (`status`). */
export async function updateAgentAction(input: unknown) {
  return runAction(updateAgent, input);
}

/** Revokes a passport and its key (final). */
export async function revokeAgentAction(input: unknown) {
  return runAction(revokeAgent, input);
}

/** Clears a throttled or quarantined agent's reputation (into review). */
export async function clearReputationAction(input: unknown) {
  return runAction(clearAgentReputation, input);
}
