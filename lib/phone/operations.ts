import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as calls from "./calls";
import * as numbers from "./numbers";
import { VOICES } from "./voices";

export const searchAvailablePhoneNumbers = defineOperation(c.searchAvailablePhoneNumbers, ({ db, query }) =>
  numbers.searchAvailable(db, query),
);
export const provisionPhoneNumber = defineOperation(c.provisionPhoneNumber, ({ db, principal, body }) =>
  numbers.provisionNumber(db, principal, body),
);
export const listPhoneNumbers = defineOperation(c.listPhoneNumbers, ({ db, principal, query }) =>
  numbers.listNumbers(db, principal, query),
);
export const getPhoneNumber = defineOperation(c.getPhoneNumber, ({ db, principal, params }) =>
  numbers.getNumber(db, principal, params.numberId),
);
export const updatePhoneNumber = defineOperation(c.updatePhoneNumber, ({ db, principal, params, body }) =>
  numbers.updateNumber(db, principal, params.numberId, body),
);
export const releasePhoneNumber = defineOperation(c.releasePhoneNumber, ({ db, principal, params }) =>
  numbers.releaseNumber(db, principal, params.numberId),
);
export const listPhoneVoices = defineOperation(c.listPhoneVoices, () =>
  Promise.resolve({ object: "list" as const, data: [...VOICES] }),
);
export const createPhoneCall = defineOperation(c.createPhoneCall, ({ db, principal, body }) =>
  calls.createCall(db, principal, body),
);
export const listPhoneCalls = defineOperation(c.listPhoneCalls, ({ db, principal, query }) =>
  calls.listCalls(db, principal, query),
);
export const getPhoneCall = defineOperation(c.getPhoneCall, ({ db, principal, params }) =>
  calls.getCall(db, principal, params.callId),
);
