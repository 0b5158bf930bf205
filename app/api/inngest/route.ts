import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { serveOptions } from "@/lib/workflows/config";

/**
 * The app's Inngest functions, served to the embedded executor or to Inngest. The serve URL it
 * registers comes from configuration, and every request (the PUT sync too) must be signed.
 */
export const { GET, POST, PUT } = serve({ client: inngest, functions, ...serveOptions() });
