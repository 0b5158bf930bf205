import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

/**
 * `size` random bytes (at most 64) drawn from the system in 4 KiB blocks, so ids cost no
 * `randomBytes` call each. A view of the block that no other caller gets: use it at once (format
 * it, write into it), never keep it.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;
export function pooledRandomBytes(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  poolOffset += size;
  return pool.subarray(poolOffset - size, poolOffset);
}

/**
 * UUID version 7 (RFC 9562): 48-bit millisecond timestamp, a 12-bit counter (method 1 of the RFC,
 * so ids made in one process within the same millisecond still increase), then random bits. Ids
 * sort by creation time, which keeps indexes append-mostly and gives keysets a stable tie-break.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = pooledRandomBytes(16); // written in place
  if (now > lastMs) {
    lastMs = now;
    // From the bytes the counter overwrites below; headroom left before the counter wraps.
    counter = (((bytes[6] ?? 0) << 8) | (bytes[7] ?? 0)) & 0x3ff;
  } else {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A UUID version 7 made by the database (a random UUID with its first 48 bits the clock's
 * milliseconds and its version nibble 7), for rows inserted by a statement that makes them itself
 * (an `insert … select` whose row count only the database knows).
 */
export const SQL_UUIDV7 =
  "encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid";
