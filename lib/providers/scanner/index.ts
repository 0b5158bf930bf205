import { env } from "@/lib/env";
import { builtinScanner } from "./builtin";
import { clamdScanner } from "./clamd";
import type { Scanner } from "./types";

export type { Scanner, ScannerInfo, ScanVerdict } from "./types";
export { EICAR, ScanError } from "./types";

let instance: Scanner | undefined;

/** clamd when CLAMD_ADDRESS is set, else the built-in scanner. */
export function scanner(): Scanner {
  instance ??= env.CLAMD_ADDRESS
    ? clamdScanner({ address: env.CLAMD_ADDRESS, timeoutMs: env.CLAMD_TIMEOUT_MS })
    : builtinScanner({ blocklistFile: env.SCANNER_BLOCKLIST_FILE });
  return instance;
}
