import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";

/** The app's Inngest functions, served to the embedded executor or to Inngest. */
export const { GET, POST, PUT } = serve({ client: inngest, functions });
