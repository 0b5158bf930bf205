import { env } from "@/lib/env";
import type { PrintProvider, PrintStatus } from "./types";

/**
 * The simulated print centre (embedded default, test mode): accepts every letter, prints nothing,
 * charges nothing. Its clock (`LETTER_SIM_STEP_MS`) moves a test letter one status per step along
 * `SIMULATED_PATH` to `LETTER_SIM_END_STATE`; lib/letters/lifecycle.ts applies the steps durably
 * (the next step's time is stored in the letter's row, so a restart loses nothing).
 */

export const SIMULATED_PATH = ["queued", "processing", "printable", "submitted", "in_transit"] as const;

/** The status after `current` on the simulated path, or null when `current` is final. */
export function nextSimulatedStatus(current: string): PrintStatus | null {
  const i = (SIMULATED_PATH as readonly string[]).indexOf(current);
  if (i === -1) return null;
  if (i === SIMULATED_PATH.length - 1) return env.LETTER_SIM_END_STATE;
  return SIMULATED_PATH[i + 1] as PrintStatus;
}

export const simulatedStepMs = () => env.LETTER_SIM_STEP_MS;

export const simulatedPrintCentre: PrintProvider = {
  name: "simulated",
  mode: "test",
  submit: (letter) => Promise.resolve({ providerLetterId: `sim_${letter.letterId.replaceAll("-", "")}` }),
  cancel: () => Promise.resolve(),
};
