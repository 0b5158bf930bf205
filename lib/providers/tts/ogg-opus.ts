/**
 * A minimal Ogg Opus writer (RFC 7845) for a silent note: an identification header, a comment
 * header and 20 ms packets of Opus's silence frame (TOC 0xF8: CELT fullband 20 ms, mono, one frame).
 * What `sendVoice` takes (an .ogg file encoded with Opus) without any encoder on the host.
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, initial value 0). */
export function oggCrc(data: Uint8Array): number {
  let crc = 0;
  for (const b of data) crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ b) & 0xff] ?? 0)) >>> 0;
  return crc >>> 0;
}

function page(packets: Buffer[], o: { serial: number; seq: number; granule: bigint; flags: number }): Buffer {
  const lacing: number[] = [];
  for (const p of packets) {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    lacing.push(n);
  }
  if (lacing.length > 255) throw new Error("ogg page: too many segments");
  const header = Buffer.alloc(27 + lacing.length);
  header.write("OggS", 0, "ascii");
  header.writeUInt8(0, 4);
  header.writeUInt8(o.flags, 5);
  header.writeBigInt64LE(o.granule, 6);
  header.writeUInt32LE(o.serial, 14);
  header.writeUInt32LE(o.seq, 18);
  header.writeUInt32LE(0, 22);
  header.writeUInt8(lacing.length, 26);
  Buffer.from(lacing).copy(header, 27);
  const out = Buffer.concat([header, ...packets]);
  out.writeUInt32LE(oggCrc(out), 22);
  return out;
}

const PRE_SKIP = 312;
const SILENCE = Buffer.from([0xf8, 0xff, 0xfe]);
const SAMPLES_PER_PACKET = 960; // 20 ms at 48 kHz

/** An Ogg Opus file of `seconds` of silence (mono, 48 kHz). */
export function silentOggOpus(seconds = 1, serial = 0x5ec0_1d00): Buffer {
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "ascii");
  head.writeUInt8(1, 8); // version
  head.writeUInt8(1, 9); // channels
  head.writeUInt16LE(PRE_SKIP, 10);
  head.writeUInt32LE(48_000, 12);
  head.writeInt16LE(0, 16); // output gain
  head.writeUInt8(0, 18); // mapping family
  const vendor = Buffer.from("svc silent note", "utf8");
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write("OpusTags", 0, "ascii");
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length);
  const count = Math.max(1, Math.min(250, Math.round((seconds * 48_000 + PRE_SKIP) / SAMPLES_PER_PACKET)));
  const audio = Array.from({ length: count }, () => SILENCE);
  return Buffer.concat([
    page([head], { serial, seq: 0, granule: 0n, flags: 0x02 }),
    page([tags], { serial, seq: 1, granule: 0n, flags: 0 }),
    page(audio, { serial, seq: 2, granule: BigInt(count * SAMPLES_PER_PACKET), flags: 0x04 }),
  ]);
}
