"use server";

import { runAction } from "@/lib/console/action";
import {
  addAudienceMembers,
  createAudience,
  deleteAudience,
  getBroadcast,
  removeAudienceMember,
  sendBroadcast,
} from "@/lib/audiences/operations";

/** Creates an audience (`POST /v1/audiences`). */
export async function createAudienceAction(input: unknown) {
  return runAction(createAudience, input, { then: (data) => ({ id: data.list.id }) });
}

export async function deleteAudienceAction(input: unknown) {
  return runAction(deleteAudience, input);
}

/** Adds 1..2,000 members (the form's one address, or one batch of a CSV import). */
export async function addMembersAction(input: unknown) {
  return runAction(addAudienceMembers, input, { labels: { email: "email address" } });
}

export async function removeMemberAction(input: unknown) {
  return runAction(removeAudienceMember, input);
}

/** Queues a broadcast (202 `bcast_…`); the page then follows its progress. */
export async function sendBroadcastAction(input: unknown) {
  return runAction(sendBroadcast, input, { labels: { inboxId: "inbox", "template.id": "template" } });
}

/** The broadcast's status and counts, polled by its page's progress bar. */
export async function readBroadcastAction(input: unknown) {
  return runAction(getBroadcast, input, { then: (data) => data.broadcast });
}
