// The agent service is split one file per verb (create.ts, read.ts, update.ts with revoke,
// bind.ts; shared rows and lookups in agent.ts). This path stays only for the send path's imports
// (lib/messages/stages/draft.ts, policy.ts, sign.ts), which other branches are changing now; new
// code imports from ./agent.
export { agentOfSend, agentPublicId, type AgentRow, findAgentById } from "./agent";
