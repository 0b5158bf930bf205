import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { FUNCTIONS } from "@/lib/registry";
import { serveOptions, serveUrl } from "@/lib/workflows/config";
import { registerServeHandler } from "@/lib/workflows/executor/registry";

/**
 * The app's Inngest functions, served to the embedded executor or to Inngest. The serve URL it
 * registers comes from configuration, and every request (the PUT sync too) must be signed. The
 * POST handler is also registered in-process, so the embedded executor in this process calls it
 * with its signed request without a loopback HTTP hop.
 */
const handlers = serve({ client: inngest, functions: [...FUNCTIONS], ...serveOptions() });
// The adapter reads only what a plain Request has (method, headers, url, body).
registerServeHandler(serveUrl(), (request) => handlers.POST(request as Parameters<typeof handlers.POST>[0], undefined));
export const { GET, POST, PUT } = handlers;
