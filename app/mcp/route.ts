import { handleMcp } from "@/lib/mcp/server";

/** The hosted MCP tool server (streamable HTTP, stateless): `lib/mcp/server.ts`. GET and DELETE answer 405. */
export const POST = handleMcp;
export const GET = handleMcp;
export const DELETE = handleMcp;
