import { defineOperation } from "@/lib/core/operation";
import * as c from "./contracts";
import * as bind from "./bind";
import * as create from "./create";
import * as read from "./read";
import * as update from "./update";
import { clearReputation, getReputation, listReputation } from "./reputation";
import { agentsJwks, verifySignature } from "./verify";

export const listAgents = defineOperation(c.listAgents, ({ db, principal, query }) =>
  read.listAgents(db, principal, query),
);
export const createAgent = defineOperation(c.createAgent, ({ db, principal, body }) =>
  create.createAgent(db, principal, body),
);
export const getAgent = defineOperation(c.getAgent, ({ db, principal, params }) =>
  read.getAgent(db, principal, params.agentId),
);
export const updateAgent = defineOperation(c.updateAgent, ({ db, principal, params, body }) =>
  update.updateAgent(db, principal, params.agentId, body),
);
export const revokeAgent = defineOperation(c.revokeAgent, ({ db, principal, params }) =>
  update.revokeAgent(db, principal, params.agentId),
);
export const bindAgent = defineOperation(c.bindAgent, ({ db, principal, params, body }) =>
  bind.bindAgent(db, principal, params.agentId, body),
);
export const getAgentsJwks = defineOperation(c.getAgentsJwks, ({ db }) => agentsJwks(db), {
  surfaces: { http: true, mcp: false, cli: true },
});
export const verifyAgentSignature = defineOperation(
  c.verifyAgentSignature,
  ({ db, body }) => verifySignature(db, body),
  {
    audit: { none: "verification reads and changes nothing" },
    surfaces: { http: true, mcp: false, cli: true },
  },
);
export const listAgentReputation = defineOperation(c.listAgentReputation, ({ db, principal }) =>
  listReputation(db, principal),
);
export const getAgentReputation = defineOperation(c.getAgentReputation, ({ db, principal, params }) =>
  getReputation(db, principal, params.agentId),
);
export const clearAgentReputation = defineOperation(c.clearAgentReputation, ({ db, principal, params, body }) =>
  clearReputation(db, principal, params.agentId, body),
);
