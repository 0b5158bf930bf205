import { defineOperation } from "@/lib/core/operation";
import { getBroadcast as readBroadcast, queueBroadcast } from "./broadcast";
import * as c from "./contracts";
import * as audiences from "./service";

export const listAudiences = defineOperation(c.listAudiences, ({ db, principal }) =>
  audiences.listAudiences(db, principal),
);
export const createAudience = defineOperation(c.createAudience, ({ db, principal, body }) =>
  audiences.createAudience(db, principal, body),
);
export const getAudience = defineOperation(c.getAudience, ({ db, principal, params, query }) =>
  audiences.getAudience(db, principal, params.audienceId, query),
);
export const deleteAudience = defineOperation(c.deleteAudience, ({ db, principal, params }) =>
  audiences.deleteAudience(db, principal, params.audienceId),
);
export const addAudienceMembers = defineOperation(c.addAudienceMembers, ({ db, principal, params, body }) =>
  audiences.addAudienceMembers(db, principal, params.audienceId, body),
);
export const removeAudienceMember = defineOperation(c.removeAudienceMember, ({ db, principal, params }) =>
  audiences.removeAudienceMember(db, principal, params.audienceId, params.memberId),
);
export const sendBroadcast = defineOperation(c.sendBroadcast, ({ db, principal, params, body, idempotencyKey }) =>
  queueBroadcast(db, principal, params.audienceId, body, idempotencyKey),
);
export const getBroadcast = defineOperation(c.getBroadcast, ({ db, principal, params }) =>
  readBroadcast(db, principal, params.broadcastId),
);
