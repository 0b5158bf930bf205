import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

/**
 * UUID version 7 (RFC 9562): 48-bit millisecond timestamp, a 12-bit counter (method 1 of the RFC,
 * so ids made in one process within the same millisecond still increase), then random bits. Ids
 * sort by creation time, which keeps indexes append-mostly and gives keysets a stable tie-break.
 */
export function uuidv7(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = randomBytes(2).readUInt16BE(0) & 0x3ff; // leave headroom before the counter wraps
  } else {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
