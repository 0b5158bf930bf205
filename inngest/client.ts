import { Inngest } from "inngest";
import { inngestClientOptions } from "@/lib/workflows/config";

/**
 * The app's Inngest client. In embedded mode it points at this app's own executor endpoints; with
 * INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY it talks to Inngest. The calls are the same.
 * Functions and their events live in the domains (`lib/<domain>/functions/`, `workflow-events.ts`)
 * and reach `serve()` through the registry (`FUNCTIONS`).
 */
export const inngest = new Inngest({ id: "svc", ...inngestClientOptions() });
