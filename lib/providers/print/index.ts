import { env } from "@/lib/env";
import { lobPrintCentre } from "./lob";
import { simulatedPrintCentre } from "./simulated";
import type { PrintProvider } from "./types";

export type { PrintMode, PrintProvider, PrintStatus, PrintSubmission } from "./types";
export { PrintRefused } from "./types";

/**
 * The print provider of this deployment, chosen by the environment: Lob when `LOB_API_KEY` is set
 * (`printMode` `live`), else the simulated print centre (`test`: nothing printed, nothing charged).
 */
export function printProvider(): PrintProvider {
  return env.LOB_API_KEY ? lobPrintCentre : simulatedPrintCentre;
}
